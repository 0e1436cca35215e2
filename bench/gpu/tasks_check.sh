#!/usr/bin/env bash
# GPU check of the built-in task suites (tasks/levelN) against their Triton reference
# solutions: correctness on every variant (compiled Triton, CUDA) and the eager
# reference's time on the large variant (target >= 0.5 ms). Needs python3 with torch,
# triton and a CUDA GPU; no build products. Writes $OUT/tasks_check_<level>.json and
# $OUT/tasks_check_<level>.log (progress and tracebacks); prints the tables.
#   OUT=/tmp/out bench/gpu/tasks_check.sh                    # every level with solutions
#   OUT=/tmp/out bench/gpu/tasks_check.sh level1             # selected levels
#   OUT=/tmp/out bench/gpu/tasks_check.sh level1 -- --variants large --tasks 1_ReLU,5_Matmul
# Arguments after "--" go to tasks_check.py. Level 1 takes a few minutes on an H200,
# most of it spent generating the ~2 GB large inputs with the CPU RNG; split a long run
# with --variants or --tasks if one call must stay under a time limit.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$ROOT/out/tasks_check}"
mkdir -p "$OUT"
unset TRITON_INTERPRET
export TRITON_CACHE_DIR="${TRITON_CACHE_DIR:-$(mktemp -d)}"

levels=()
while [[ $# -gt 0 && "$1" != "--" ]]; do levels+=("$1"); shift; done
[[ $# -gt 0 ]] && shift  # drop "--"
if [[ ${#levels[@]} -eq 0 ]]; then
  for d in "$ROOT"/tasks/solutions/level*/; do levels+=("$(basename "$d")"); done
fi

rc=0
for level in "${levels[@]}"; do
  echo "== $level"
  python3 "$ROOT/bench/gpu/tasks_check.py" --device cuda --levels "$level" \
    --json "$OUT/tasks_check_$level.json" "$@" 2>"$OUT/tasks_check_$level.log" || rc=1
done
exit $rc
