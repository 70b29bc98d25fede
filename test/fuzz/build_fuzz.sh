#!/usr/bin/env bash
# Builds the fuzz targets: `build_fuzz.sh fuzz OUT` with libFuzzer (for fuzzing runs),
# `build_fuzz.sh replay OUT` with a plain main that replays files (for ctest). Both with
# AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
mode=$1 out=$2 cc=${CC:-clang-14}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../postmortem
mkdir -p "$out"
lib=()
for f in "$src"/*.c; do
  case $(basename "$f") in main.c|cli_*.c) continue ;; esac
  lib+=("$f")
done
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
if [ "$mode" = fuzz ]; then san="$san -fsanitize=fuzzer"; driver=(); else driver=("$here/replay_main.c"); fi
flags="-O1 -g -D_GNU_SOURCE -I$src -I$here/../../include -I/usr/include/libdwarf $san"
libs="/usr/lib/x86_64-linux-gnu/libdwarf.a -lelf -lz -lsqlite3 -lcapstone -lstdc++"
$cc $flags -DCT_FUZZ_BINARY="\"$here/corpus/target.bin\"" "$here/fuzz_dump.c" "${driver[@]}" "${lib[@]}" $libs -o "$out/fuzz_dump"
$cc $flags "$here/fuzz_meta.c" "${driver[@]}" "${lib[@]}" $libs -o "$out/fuzz_meta"
