#!/usr/bin/env bash
# The crashtrail demo, from a bare Debian bookworm machine: installs what is missing, builds
# crashtrail, compiles examples/calc (a small multi-file C calculator with a bug) with
# crashtrail-cc, runs it until it dies of SIGSEGV, prints the source-level timeline of what it
# did, and writes the HTML report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh demo
scripts/build.sh
out=build/demo
rm -rf "$out" && mkdir -p "$out"
build/bin/crashtrail-cc -O2 -g examples/calc/*.c -o "$out/calc"
echo "== running calc (it will crash) =="
status=0
(cd "$out" && CRASHTRAIL_DIR=. ./calc) || status=$?
echo "== calc exited with status $status (139 = killed by SIGSEGV, as without crashtrail) =="
dump=$(ls "$out"/*.ctd)
build/bin/crashtrail show --steps=60 "$dump"
build/bin/crashtrail report "$dump" -o "$out/crash.html"
echo
echo "HTML report written to $PWD/$out/crash.html"
