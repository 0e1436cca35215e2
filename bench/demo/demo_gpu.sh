#!/usr/bin/env bash
# The demo at its GPU size (`tritonrl demo --gpu`, docs/demo.md): the learning experiment E1 as
# demo stages (synthetic tasks -> SFT of builtin:small -> calibration and the fixed RL pool ->
# GRPO on the pool -> the SFT policy (the lr-0 control) and the GRPO policy evaluated on the pool
# at one seed, paired by task with bootstrap intervals). Proves that it finishes within 10
# minutes on one GPU and records the pool's before/after for bench/RESULTS.md.
#
#   BIN=<folder with tritonrl (scripts/device_pack.sh)> OUT=<folder> bench/demo/demo_gpu.sh [flags]
#
# Extra flags go to `tritonrl demo` (e.g. --grpo-steps 12, --pool-k 8, --seed 1;
# bench/gpu/session.sh passes $DEMO_FLAGS). The earlier pipeline (GRPO with HRD on new RL tasks,
# held-out and level-1 evaluations, --ablation uniform,binary, --ablation-seeds 2, --timing)
# needs --no-learning. A run cut short keeps its finished stages and resumes from them. The run
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
learning = s.get("learning", {})
if learning.get("paired"):
    p = learning["paired"].get("metrics", {}).get("pass@1", {})
    iv = lambda k: "%+.3f [%+.3f, %+.3f]" % (p[k]["estimate"], p[k]["low"], p[k]["high"]) if k in p else "-"
    print("pool: control %s, GRPO %s, difference %s" % (iv("before"), iv("after"), iv("difference")))
for mode, a in s.get("ablation", {}).items():
    print("%s over seeds %s: mean %.3f sd %.3f min %.3f max %.3f" % (mode, a["seeds"], a["mean"],
                                                                      a["sd"], a["min"], a["max"]))
PY
} >>"$SUMMARY"
cat "$SUMMARY"
exit "$rc"
