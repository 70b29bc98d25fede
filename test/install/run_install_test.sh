#!/usr/bin/env bash
# cmake --install puts the plugin, runtime, headers, tools and a CMake package under a prefix;
# a separate project then instruments itself with find_package(crashtrail) and
# crashtrail_instrument(), crashes, and the installed tools read the dump.
set -euo pipefail
build=$1 clang=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for f in bin/crashtrail bin/crashtrail-cc bin/crashtrail-c++ lib/crashtrail-pass.so \
         lib/libcrashtrail-rt.a lib/libcrashtrail-rt.so include/crashtrail/crashtrail.h \
         lib/cmake/crashtrail/crashtrailConfig.cmake; do
  [ -e "$work/prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
cmake -S "$(dirname "$0")/consumer" -B "$work/build" -DCMAKE_C_COMPILER="$clang" \
      -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
mkdir "$work/dumps"
status=0
(cd "$work/dumps" && "$work/build/consumer") 2>/dev/null || status=$?
[ "$status" -eq 139 ] || { echo "FAIL: consumer exited $status, expected 139 (SIGSEGV)"; exit 1; }
dumps=("$work"/dumps/*.ctd)
[ ${#dumps[@]} -eq 1 ] || { echo "FAIL: expected one dump, got ${#dumps[@]}"; exit 1; }
"$work/prefix/bin/crashtrail" show --format=json "${dumps[0]}" > "$work/tl.json"
python3 - "$work/tl.json" <<'PY'
import json, sys
tl = json.load(open(sys.argv[1]))
steps = tl["threads"][0]["steps"]
assert tl["signal"]["name"] == "SIGSEGV", tl["signal"]
assert steps[-1]["crash"] and steps[-1]["file"].endswith("main.c"), steps[-1]
assert [s["function"] for s in steps][-2:] in (["lookup", "main"], ["main", "main"]) or steps[-1]["function"] == "main"
PY
# The on-demand API from the installed header works and the process goes on.
(cd "$work/dumps" && "$work/build/consumer" ask) 2>/dev/null
[ "$(ls "$work"/dumps/*.ctd | wc -l)" -eq 2 ] || { echo "FAIL: no on-demand dump"; exit 1; }
# The installed wrapper finds its plugin and runtime relative to itself.
printf 'int main(void){ int *p = 0; return *p; }\n' > "$work/w.c"
"$work/prefix/bin/crashtrail-cc" -O1 "$work/w.c" -o "$work/w"
"$work/prefix/bin/crashtrail" meta "$work/w" | grep -q "function main"
echo "ok: installed, found by find_package, instrumented, crashed and decoded"
