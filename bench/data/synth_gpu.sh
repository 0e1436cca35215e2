#!/usr/bin/env bash
# GPU check of the synthetic data generator (issue 18): generate N tasks and verify every
# solution compiled (no interpreter) on every variant (small, medium, large) with our evaluator,
# plus the null-model audit on the GPU. Prints the statistics and the time taken, and leaves
# $OUT/synth/{manifest.jsonl,splits.json,stats.json} for bench/RESULTS.md.
#
#   OUT=/tmp/synth N=2000 JOBS=1 bench/data/synth_gpu.sh
#
# Large variants move 1-3 GB per task, so a full 2,000-task run is long: split it with
# N=... and SEED=..., or run the medium-only pass first (VARIANTS is not an evaluator option;
# the evaluator runs every variant on cuda).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$ROOT/build/synth_gpu}"
N="${N:-2000}"
SEED="${SEED:-1}"
JOBS="${JOBS:-1}"
TRITONRL="${TRITONRL:-$ROOT/build/tritonrl}"
PY="${PY:-$ROOT/.venv/bin/python}"
mkdir -p "$OUT"
start=$(date +%s)
"$TRITONRL" data synth --n "$N" --seed "$SEED" --out "$OUT/synth" --device cuda --jobs "$JOBS" \
  --python "$PY" --keep-work | tee "$OUT/synth_gpu.log"
end=$(date +%s)
echo "synth_gpu: N=$N seed=$SEED took $((end - start)) s" | tee -a "$OUT/synth_gpu.log"
python3 - "$OUT/synth/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"generated {s['generated']} kept {s['kept']} rejected {s['rejected']}")
print("rejected by reason:", s["rejected_by_reason"])
PY
