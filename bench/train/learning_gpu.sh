#!/usr/bin/env bash
# One device call of the learning experiment (bench/train/learning.sh, docs/demo.md "Does GRPO
# learn?"): runs its stages under a time limit in a work folder inside the checkout ($ROOT/.learn,
# ignored by git), so the next call on the same warm machine resumes where this one stopped, and
# packs the run's small files (log, labels, evaluations, metrics, rollouts; no weights, no task
# files) into $OUT/learning_<CALL>.tar.gz, with learning.sh's output and the summary beside it.
#
#   BIN=<folder with tritonrl (scripts/device_pack.sh)> OUT=<folder> LIMIT=<s> \
#     bench/train/learning_gpu.sh CALL [STAGE...]
# Every other variable goes to learning.sh (STEPS, CONTROL_STEPS, EVAL_SETS, ...).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
: "${BIN:?set BIN to the folder with tritonrl}" "${OUT:?set OUT to the folder for the results}"
CALL="$1"; shift
export TRITONRL_PYTHON="${TRITONRL_PYTHON:-python3}"
source "$ROOT/bench/gpu/libpath.sh"
export W="${W:-$ROOT/.learn}"
mkdir -p "$W" "$OUT"
{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } \
  >>"$W/machine.txt" 2>&1
start=$(date +%s)
timeout -k 15 "${LIMIT:-560}" env BIN="$BIN/tritonrl" bash bench/train/learning.sh "$@" \
  >"$OUT/learning_${CALL}_stdout.txt" 2>&1
rc=$?
echo "learning.sh $*: exit $rc after $(($(date +%s) - start)) s (limit ${LIMIT:-560})" | tee -a "$W/learning.log"
[[ -f "$W/summary.txt" ]] && cp "$W/summary.txt" "$OUT/learning_${CALL}_summary.txt"
(cd "$W" && find . -type f \( -name '*.jsonl' -o -name '*.json' -o -name '*.txt' -o -name '*.log' \) \
   -not -path './synth/*' -not -path './candidates/*' -not -path './heldout_shape/*' \
   -not -name 'records.jsonl' -not -name 'sft_train.jsonl' -not -name 'sft_eval.jsonl' \
   -not -name 'tokenizer.json' -print0 | tar --null -czf "$OUT/learning_${CALL}.tar.gz" -T -)
tail -n 40 "$W/learning.log"
ls -la "$OUT"
exit $rc
