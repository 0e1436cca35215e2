#!/usr/bin/env bash
# GPU run of `tritonrl train grpo` (H200; docs/train.md "GPU benchmark"). Needs $BIN with
# tritonrl built with libtorch (CUDA) and $OUT for logs. MODEL defaults to builtin:small (random
# weights: every rollout is rejected, which still times generation, scoring and the update); give
# MODEL=DIR of an SFT checkpoint for a run with real rewards.
#   1 on-policy: STEPS steps, B tasks x G rollouts, level-1 suite, scored on the GPU (compiled kernels)
#   2 the same with --off-policy 1 (scoring of step N overlaps sampling of step N+1)
# Prints per step: generation / scoring / update seconds, generation tokens/s, rewards; and medians.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$HERE/../.."
: "${BIN:?set BIN to the folder with tritonrl}"
: "${OUT:?set OUT to the folder for logs}"
PY="${PYTHON:-python3}"
MODEL="${MODEL:-builtin:small}"
TASKS="${TASKS:-$ROOT/tasks}"
STEPS="${STEPS:-6}"; G="${G:-8}"; B="${B:-4}"; NEW="${NEW:-512}"; JOBS="${JOBS:-8}"
mkdir -p "$OUT"
TRITONRL_PYTHON="$PY" source "$ROOT/bench/gpu/libpath.sh"
SUMMARY="$OUT/grpo_summary.txt"
: >"$SUMMARY"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >>"$SUMMARY" 2>&1 || true

summarise() {  # summarise NAME METRICS_JSONL
  "$PY" - "$1" "$2" <<'PYEOF' | tee -a "$SUMMARY"
import json, statistics, sys
name, path = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(path) if l.strip()]
print(f"== {name}: {len(rows)} steps")
print("step  gen_s  score_s  update_s  gen_tok/s  resp_tok  R_correct  correct  valid  entropy  trunc")
for r in rows:
    print(f"{r['step']:4d} {r['gen_seconds']:6.1f} {r['score_seconds']:8.1f} {r['update_seconds']:9.2f} "
          f"{r['gen_tokens_per_second']:10.0f} {r['response_tokens']:9.0f} {r['reward_correct']:10.3f} "
          f"{r['correct_rate']:8.2f} {r['valid_rate']:6.2f} {r['entropy']:8.3f} {r['truncated']:6d}")
later = rows[1:] or rows
for k in ("gen_seconds", "score_seconds", "update_seconds", "gen_tokens_per_second", "elapsed_s"):
    print(f"median {k} (steps after the first): {statistics.median(r[k] for r in later):.2f}")
print(f"wall per step (elapsed/steps): {rows[-1]['elapsed_s'] / len(rows):.1f} s")
PYEOF
}

for policy in 0 1; do
  run="$OUT/grpo_offpolicy$policy"
  rm -rf "$run"
  echo "== tritonrl train grpo --off-policy $policy (model $MODEL, G=$G B=$B, $NEW new tokens)" | tee -a "$SUMMARY"
  /usr/bin/time -v "$BIN/tritonrl" train grpo --model "$MODEL" --tasks "$TASKS" --out "$run" \
    --device cuda --eval-device cuda --jobs "$JOBS" --group "$G" --tasks-per-step "$B" \
    --max-new-tokens "$NEW" --steps "$STEPS" --levels 1:1 --lr 1e-6 --off-policy "$policy" \
    --no-progress 2>"$run.stderr"
  rc=$?
  grep -E "Maximum resident|Elapsed" "$run.stderr" | tee -a "$SUMMARY"
  tail -3 "$run.stderr" | tee -a "$SUMMARY"
  [[ $rc -eq 0 ]] || { echo "exit $rc" | tee -a "$SUMMARY"; continue; }
  summarise "off-policy $policy" "$run/metrics.jsonl"
  "$BIN/tritonrl" report --train-log "$run/metrics.jsonl" --out "$run/report.html" >/dev/null
done
echo "summary: $SUMMARY"
