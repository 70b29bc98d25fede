#!/usr/bin/env bash
# Regenerates the seed corpus (run by hand; the result is committed): builds target.c with
# crashtrail, makes small dumps of each way it can end, and extracts metadata sections.
# corpus/target.bin must stay the binary the dumps were made with (they match by build-id).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: make_corpus.sh BUILD_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# regress-*.ctd are inputs that once broke a reader: they are kept, not regenerated.
mkdir -p "$here/corpus/dump" "$here/corpus/meta"
rm -f "$here/corpus"/dump/{segv,fpe,abort,request}-*.ctd "$here/corpus"/meta/*.meta
"$build/bin/crashtrail-cc" -O2 -g -pthread "$here/target.c" -o "$here/corpus/target.bin"
for what in segv fpe abort request; do
  for kb in 8 16; do
    mkdir -p "$work/$what$kb"
    (cd "$work/$what$kb" && CRASHTRAIL_RING_KB=$kb CRASHTRAIL_STACK_KB=4 \
       "$here/corpus/target.bin" "$what" >/dev/null 2>&1) || true
    cp "$work/$what$kb"/*.ctd "$here/corpus/dump/$what-$kb.ctd"
  done
done
objcopy --dump-section .debug_crashtrail="$here/corpus/meta/target.meta" "$here/corpus/target.bin" "$work/ignored"
"$build/bin/crashtrail-cc" -O0 -c "$here/target.c" -o "$work/t0.o"
objcopy --dump-section .debug_crashtrail="$here/corpus/meta/target-O0.meta" "$work/t0.o" "$work/ignored0"
ls -la "$here/corpus"/*
