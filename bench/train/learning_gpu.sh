#!/usr/bin/env bash
# The learning experiment (bench/train/learning.sh, docs/demo.md "Does GRPO learn?") on the GPU
# machine, in a work folder inside the checkout ($ROOT/.learn, ignored by git) so that a later
# call on the same warm machine resumes where an earlier one stopped. Three ways to run it:
#
#   learning_gpu.sh CALL [STAGE...]           one device call: learning.sh under LIMIT seconds
#   learning_gpu.sh --start CALL [STAGE...]   learning.sh detached (its own process session), so
#                                             it runs on across device calls until the machine
#                                             goes back; returns at once
#   learning_gpu.sh --wait CALL               waits for the detached run to end, or LIMIT seconds
#
# Every form ends by packing the run's small files (log, labels, evaluations, metrics, rollouts;
# no weights, no task files) into $OUT/learning_<CALL>.tar.gz, with learning.sh's output and the
# summary beside it, so a call cut short still returns what the run has so far.
#
#   BIN=<folder with tritonrl (scripts/device_pack.sh)> OUT=<folder> LIMIT=<s> \
#     bench/train/learning_gpu.sh [--start|--wait] CALL [STAGE...]
# Every other variable goes to learning.sh (STEPS, CONTROL_STEPS, EVAL_SETS, SCORE_EXTRA, ...).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
: "${BIN:?set BIN to the folder with tritonrl}" "${OUT:?set OUT to the folder for the results}"
verb=run
[[ "${1:-}" == --start || "${1:-}" == --wait ]] && { verb="${1#--}"; shift; }
CALL="$1"; shift
export TRITONRL_PYTHON="${TRITONRL_PYTHON:-python3}"
# This checkout's runner, named: without it the binary finds the runner through the source path
# it was built in, which on the GPU machine is the device tool's copy of the checkout, replaced at
# every call (a detached run that outlived its call lost it; seventeenth session).
export TRITONRL_RUNNER_DIR="${TRITONRL_RUNNER_DIR:-$ROOT/python}"
source "$ROOT/bench/gpu/libpath.sh"
export W="${W:-$ROOT/.learn}"
mkdir -p "$W" "$OUT"

pack() {
  [[ -f "$W/summary.txt" ]] && cp "$W/summary.txt" "$OUT/learning_${CALL}_summary.txt"
  # The engine's clock of every timed rollout against what its worker reported (the stores
  # themselves are too large to bring back).
  local stores=("$W"/grpo/*/scores.sqlite)
  [[ -f "${stores[0]}" ]] && python3 "$ROOT/bench/gpu/parent_clock.py" "${stores[@]}" >"$W/parent_clock.txt" 2>&1
  # Where each step's scoring went (issue 35): contexts started against the timing lease's time.
  local s
  for s in "${stores[@]}"; do
    [[ -f "$s" ]] && python3 "$ROOT/bench/train/scoring_split.py" "$s" >"$(dirname "$s")/scoring_split.txt" 2>&1
  done
  [[ -f "$W/detached_stdout.txt" ]] && tail -c 2000000 "$W/detached_stdout.txt" >"$OUT/learning_${CALL}_stdout.txt"
  (cd "$W" && find . -type f \( -name '*.jsonl' -o -name '*.json' -o -name '*.txt' -o -name '*.log' \) \
     -not -path './synth/*' -not -path './candidates/*' -not -path './heldout_shape/*' \
     -not -name 'records.jsonl' -not -name 'sft_train.jsonl' -not -name 'sft_eval.jsonl' \
     -not -name 'tokenizer.json' -not -name 'detached_stdout.txt' -print0 |
     tar --null -czf "$OUT/learning_${CALL}.tar.gz" -T -)
  tail -n 40 "$W/learning.log" 2>/dev/null
  ls -la "$OUT"
}

detached_alive() { [[ -f "$W/detached.pid" ]] && kill -0 "$(cat "$W/detached.pid")" 2>/dev/null; }

case "$verb" in
  run)
    { date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } \
      >>"$W/machine.txt" 2>&1
    start=$(date +%s)
    timeout -k 15 "${LIMIT:-560}" env BIN="$BIN/tritonrl" bash bench/train/learning.sh "$@" \
      >"$OUT/learning_${CALL}_stdout.txt" 2>&1
    rc=$?
    echo "learning.sh $*: exit $rc after $(($(date +%s) - start)) s (limit ${LIMIT:-560})" | tee -a "$W/learning.log"
    pack
    exit $rc
    ;;
  start)
    if detached_alive; then echo "learning_gpu.sh: a detached run is going (pid $(cat "$W/detached.pid"))" >&2; exit 2; fi
    { date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; } \
      >>"$W/machine.txt" 2>&1
    rm -f "$W/detached.rc" "$W/detached.pid"
    # setsid: the device tool ends a call's processes when it returns, except a new session's.
    # The detached shell writes its own pid (setsid forks when started as a group leader).
    setsid nohup bash -c 'echo $$ >"$2/detached.pid"; BIN="$1/tritonrl" bash bench/train/learning.sh "${@:3}"
      echo $? >"$2/detached.rc"' _ "$BIN" "$W" "$@" >>"$W/detached_stdout.txt" 2>&1 </dev/null &
    for _ in 1 2 3 4 5 6 7 8 9 10; do [[ -s "$W/detached.pid" ]] && break; sleep 0.2; done
    echo "learning_gpu.sh: learning.sh $* detached (pid $(cat "$W/detached.pid" 2>/dev/null))"
    ;;
  wait)
    start=$(date +%s)
    while detached_alive && (($(date +%s) - start < ${LIMIT:-560})); do sleep 5; done
    if [[ -f "$W/detached.rc" ]]; then
      echo "learning.sh (detached): exit $(cat "$W/detached.rc")" | tee -a "$W/learning.log"
    else
      echo "learning.sh (detached): still running after this call's $(($(date +%s) - start)) s"
    fi
    pack
    ;;
esac
