#!/usr/bin/env bash
# The pass builds and works against LLVM 19 too: configure a second build tree for LLVM 19,
# build it, and run the pass's lit tests, the end-to-end crash tests and the round trip there.
set -euo pipefail
src=$1 out=$2
cmake -S "$src" -B "$out" -G Ninja -DCRASHTRAIL_LLVM_VERSION=19 -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null
cmake --build "$out" --target crashtrail-pass crashtrail-opt crashtrail crashtrail-rt \
      crashtrail-rt-shared crashtrail-cc >/dev/null
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -sv "$out/test/pass"
cd "$out" && ctest --output-on-failure -L e2e -E install
python3 "$src/test/roundtrip/run_roundtrip.py" --build "$out" --clang clang-19 --clangxx clang++-19 \
        --seeds 2 --program "$src/test/pass/runs-unchanged.c" --program "$src/test/pass/exceptions.cpp"
