#!/usr/bin/env bash
# The test command of the README (`make test`): the notebooks' lessons, then pytest. Offline, no telemetry.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/env.sh
.venv/bin/nbdev_test --n_workers 2 --timing
.venv/bin/python -m pytest tests -v -rA --durations=0
