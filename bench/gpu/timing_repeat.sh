#!/usr/bin/env bash
# Does a speedup repeat? The same honest kernels timed in several fresh runs (no cache), under the
# scoring load of a GRPO step and without it (docs/measurement.md, "Quiet timing"; OWED row 9).
#
# The samples are the reference solutions of N synthetic tasks (`tritonrl data synth`, the tasks
# E2 trains on), timed at the variant E2 times (medium). Runs, each a fresh `tritonrl eval
# --no-cache` (so each times its references too), in this order:
#   load1 load2     --jobs JOBS                  (as GRPO scores)
#   quiet1 quiet2   --jobs JOBS --quiet-timing
#   alone           --jobs 1                     (nothing else on the GPU or the CPUs)
# then bench/gpu/timing_repeat.py prints, per pair of runs, how far the same sample's speedup,
# candidate time and reference time moved, and each run's wall time and samples a second.
#
#   BIN=<folder with tritonrl> OUT=<folder> [N=64 JOBS=16 TRIALS=100 VARIANT=medium RUNS="load1 ..."] \
#     bench/gpu/timing_repeat.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
: "${BIN:?set BIN to the folder with tritonrl}" "${OUT:?set OUT to the folder for the results}"
N="${N:-64}" JOBS="${JOBS:-16}" TRIALS="${TRIALS:-100}" DEVICE="${DEVICE:-cuda}" VARIANT="${VARIANT:-medium}"
RUNS="${RUNS:-load1 load2 quiet1 quiet2 alone}"
EXTRA="${EXTRA:-}"  # e.g. "--cpu-timing" for a CPU check of the script (its numbers mean nothing)
export TRITONRL_PYTHON="${TRITONRL_PYTHON:-python3}"
W="${W:-$(mktemp -d)}"
mkdir -p "$OUT" "$W"
"$BIN/tritonrl" data synth --n "$N" --seed 1 --no-verify --out "$W/synth" >"$W/synth.log" 2>&1
python3 - "$W/synth" "$W/samples.jsonl" <<'PY'
import json, sys
from pathlib import Path
synth, out = Path(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    for line in open(synth / "manifest.jsonl"):
        task = json.loads(line)["task"]
        code = (synth / "solutions" / f"{task}.py").read_text()
        f.write(json.dumps({"task": task, "sample": task, "code": code}) + "\n")
PY
echo "timing_repeat: $(wc -l <"$W/samples.jsonl") samples, runs: $RUNS" | tee "$OUT/timing_repeat.log"
for run in $RUNS; do
  case "$run" in
    load*) flags=(--jobs "$JOBS") ;;
    quiet*) flags=(--jobs "$JOBS" --quiet-timing) ;;
    alone*) flags=(--jobs 1) ;;
    *) echo "timing_repeat.sh: unknown run '$run' (load*, quiet*, alone*)" >&2; exit 2 ;;
  esac
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$BIN/tritonrl" eval --tasks "$W/synth/tasks" --samples "$W/samples.jsonl" --device "$DEVICE" \
    --variants "$VARIANT" --timing-trials "$TRIALS" --no-cache --json --db "$W/$run.sqlite" \
    "${flags[@]}" $EXTRA >"$OUT/$run.json" 2>>"$W/eval.log"
  echo "$run $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)")" \
    >>"$W/walls.txt"
  echo "timing_repeat: $run done ($(tail -n 1 "$W/walls.txt"))" | tee -a "$OUT/timing_repeat.log"
done
python3 "$ROOT/bench/gpu/timing_repeat.py" --walls "$W/walls.txt" $(for r in $RUNS; do echo "$r=$OUT/$r.json"; done) \
  | tee "$OUT/timing_repeat.txt"
