#!/usr/bin/env bash
# Downloads into .whl/ the wheels that bench/serve/trl_grpo.py installs on the GPU machine, which
# has transformers, accelerate, pandas and pyarrow but not these (and no network). The versions are
# python/requirements.txt's pins. datasets 5.2 wants huggingface_hub >= 1.31 (that machine had 1.33
# when last listed) and pyarrow >= 24 (its version there not yet checked; 4.8.5 ran there before).
# Carry .whl with the run (docs/serve.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY="${PY:-.venv/bin/python}"
"$PY" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 -d .whl \
  trl==1.16.0 datasets==5.2.0 dill==0.4.1 multiprocess==0.70.19
ls .whl
