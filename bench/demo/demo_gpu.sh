#!/usr/bin/env bash
# The demo at its H200 size (`tritonrl demo --gpu`, docs/demo.md): synthetic tasks -> SFT of
# builtin:small -> GRPO with HRD, evaluated before and after on held-out synthetic tasks and
# level 1 with compiled kernels. Proves that the larger demo finishes within 10 minutes on one
# H200 and records held-out pass@1 after SFT and after GRPO and the invalid-output shares
# (TritonRL Figure 5) before and after RL, for bench/RESULTS.md.
#
#   BIN=<folder with tritonrl (scripts/device_pack.sh)> OUT=<folder> bench/demo/demo_gpu.sh [flags]
#
# Extra flags go to `tritonrl demo` (e.g. --ablation uniform,binary, --ablation-seeds 2,
# --grpo-steps 3, --rl-tasks 32, --seed 1, --timing; bench/gpu/session.sh passes $DEMO_FLAGS). The run
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
  grep -E "^demo: stage .* done in|^demo: (base|sft|grpo[-a-z0-9]*) on|^demo: grpo[-a-z0-9]* step|tritonrl demo:" \
    "$OUT/demo_stderr.txt"
  cat "$OUT/demo_stdout.txt"
  # The task split and each GRPO run's held-out pass@1 (per mode and seed), for bench/RESULTS.md.
  "$TRITONRL_PYTHON" - "$OUT/demo/eval/summary.json" <<'PY' 2>/dev/null || true
import json, sys
s = json.load(open(sys.argv[1]))
print("tasks: %d SFT, %d RL (%d of them SFT tasks, %d others of an SFT pattern), %d held-out" % (
    len(s.get("train_tasks", [])), len(s.get("rl_tasks", [])), len(s.get("rl_sft_tasks", [])),
    s.get("rl_seen_pattern_tasks", 0), len(s.get("heldout_tasks", []))))
for r in s.get("grpo_runs", []):
    g = s.get(r["stage"], {})
    print("%s: mode %s seed %d held-out pass@1 %.3f; groups %d informative of %d sampled in %d "
          "rounds" % (r["stage"], r["mode"], r["seed"], r["heldout_pass_at_1"],
                      g.get("informative_groups", 0), g.get("sampled_groups", 0),
                      g.get("rounds", 0)))
for mode, a in s.get("ablation", {}).items():
    print("%s over seeds %s: mean %.3f sd %.3f min %.3f max %.3f" % (mode, a["seeds"], a["mean"],
                                                                      a["sd"], a["min"], a["max"]))
PY
} >>"$SUMMARY"
cat "$SUMMARY"
exit "$rc"
