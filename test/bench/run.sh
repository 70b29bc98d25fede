#!/usr/bin/env bash
# The full overhead benchmark of issue 7, one command (see docs/performance.md):
#   test/bench/run.sh [bench.py options]
# Installs what it needs, fetches the Debian sources, builds crashtrail and every workload in
# every variant, measures, and writes the results into docs/performance.md.
set -euo pipefail
exec python3 "$(dirname "$0")/bench.py" --config full "$@"
