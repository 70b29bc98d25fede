#!/usr/bin/env bash
# Configuring crashtrail with GCC as the C compiler must stop with a message that says to use
# clang: GCC ignores the runtime's preserve_most attribute, and every program linked with such
# a runtime would corrupt its registers at the first ring chunk boundary.
set -euo pipefail
src=$1
gcc=$(command -v gcc || true)
[ -n "$gcc" ] || { echo "gcc not installed: nothing to check"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
cmake -S "$src" -B "$work" -G Ninja -DCMAKE_C_COMPILER="$gcc" -DBUILD_TESTING=OFF \
      > "$work/out.txt" 2>&1 || status=$?
[ "$status" -ne 0 ] || { echo "FAIL: configuring with $gcc succeeded"; exit 1; }
grep -q "must be built with clang" "$work/out.txt" ||
  { echo "FAIL: no clear message:"; cat "$work/out.txt"; exit 1; }
# The source guard too, for builds that do not go through this CMakeLists.txt.
status=0
"$gcc" -fsyntax-only -I "$src/include" "$src/runtime/ring.c" > "$work/gcc.txt" 2>&1 || status=$?
[ "$status" -ne 0 ] && grep -q "needs clang" "$work/gcc.txt" ||
  { echo "FAIL: ring.c compiles with gcc:"; cat "$work/gcc.txt"; exit 1; }
echo "ok: GCC refused with a clear message, at configure time and in ring.c"
