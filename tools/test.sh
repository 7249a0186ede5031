#!/usr/bin/env bash
# The test command of the README (`make test`): the notebooks' lessons, then pytest. Offline, no telemetry.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/env.sh
.venv/bin/nbdev_test --n_workers 2 --timing
# two tests at once (pytest-xdist): the suite runs in about two thirds of the time on 2 cores, and every test shows it owns its
# processes, folders and environment while another runs beside it
.venv/bin/python -m pytest tests -n 2 --dist loadgroup -v -rA --durations=0
