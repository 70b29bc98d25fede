#!/usr/bin/env bash
# Installs what the tests need, builds crashtrail and runs every test of the default set through
# ctest (all labels but `real`; run those with: cd build && ctest -L real).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
scripts/build.sh
cd build
ctest --output-on-failure -j2 -LE real
