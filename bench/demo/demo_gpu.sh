#!/usr/bin/env bash
# The demo at its H200 size (`tritonrl demo --gpu`, docs/demo.md): synthetic tasks -> SFT of
# builtin:small -> GRPO with HRD, evaluated before and after on held-out synthetic tasks and
# level 1 with compiled kernels. Proves that the larger demo finishes within 10 minutes on one
# H200 and records held-out pass@1 after SFT and after GRPO and the invalid-output shares
# (TritonRL Figure 5) before and after RL, for bench/RESULTS.md.
#
#   BIN=<folder with tritonrl (scripts/device_pack.sh)> OUT=<folder> bench/demo/demo_gpu.sh [flags]
#
# Extra flags go to `tritonrl demo` (e.g. --ablation uniform,binary, --seed 1, --timing). The run
# is cut at DEMO_LIMIT seconds (default 600); the stages finished by then keep their outputs
# (eval/summary.json).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
: "${BIN:?set BIN to the folder with tritonrl}"
: "${OUT:?set OUT to the folder for the results}"
export TRITONRL_PYTHON="${TRITONRL_PYTHON:-python3}"
source "$ROOT/bench/gpu/libpath.sh"
mkdir -p "$OUT"
SUMMARY="$OUT/demo_gpu_summary.txt"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$SUMMARY" 2>&1 || true
start=$(date +%s)
LIMIT="${DEMO_LIMIT:-600}"
timeout -k 15 "$LIMIT" "$BIN/tritonrl" demo --gpu --out "$OUT/demo" "$@" 2>"$OUT/demo_stderr.txt" |
  tee "$OUT/demo_stdout.txt"
rc=${PIPESTATUS[0]}
end=$(date +%s)
{
  echo "tritonrl demo --gpu $*: exit $rc after $((end - start)) s (limit $LIMIT)"
  grep -E "^demo: stage .* done in|^demo: (base|sft|grpo[-a-z]*) on|^demo: grpo[-a-z]* step|tritonrl demo:" \
    "$OUT/demo_stderr.txt"
  cat "$OUT/demo_stdout.txt"
} >>"$SUMMARY"
cat "$SUMMARY"
exit "$rc"
