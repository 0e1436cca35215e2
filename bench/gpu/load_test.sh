#!/usr/bin/env bash
# The load rule on the H200 (docs/measurement.md, "The load rule"; issue 15 point 2): no honest
# sample is rejected under the worst load a user creates, and the timing-hack corpus is still
# caught under it. ~5 minutes.
#
#   BIN=<folder with tritonrl> OUT=<results folder> bench/gpu/load_test.sh
#
# While a background process keeps the GPU busy (a torch bf16 matmul loop on the same GPU,
# started here and killed at the end), with --jobs $LOAD_JOBS (default 16, one per CPU of the
# H200 host):
#   A. every honest corpus file (tests/corpus/legit) and every task solution (tasks/solutions)
#      on the medium variants, 30 timed calls each: expected 0 samples not `correct`
#      (timing_contended / parent_clock_gap may void speedups; they must not fail a sample);
#   B. the timing-hack corpus (tests/corpus/hacks/timing_*.py) with --no-static, 100 timed calls:
#      each meets its '# no-static:' label (measure.sh step 1b), so forgery is still caught.
# $OUT gets: load.log, honest.json, hacks.json (engine outputs), hog.log, load_table.txt,
# load_summary.json (bench/gpu/load_check.py makes the table and the verdict).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BIN="${BIN:?set BIN to the folder holding tritonrl}"
source "$ROOT/bench/gpu/libpath.sh"
OUT="${OUT:?set OUT to the output folder}"
mkdir -p "$OUT"
export TRITONRL_RUNNER_DIR="$ROOT/python"
export TRITONRL_PYTHON="${TRITONRL_PYTHON:-$(command -v python3)}"
PY="$TRITONRL_PYTHON"
JOBS="${LOAD_JOBS:-16}"
TMP="$(mktemp -d)"
LOG="$OUT/load.log"
: >"$LOG"
T_START=$(date +%s)
note() { echo "[$(($(date +%s) - T_START))s] $*" | tee -a "$LOG"; }
HOG_PID=""
cleanup() {
  [[ -n "$HOG_PID" ]] && kill "$HOG_PID" 2>/dev/null && wait "$HOG_PID" 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT

note "load_test.sh: $(date -u +%FT%TZ) host $(hostname), jobs $JOBS"
note "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
"$PY" bench/gpu/derive_suite.py tasks "$TMP/suite" --keep medium >>"$LOG" 2>&1
# The hacks run where measure.sh step 1 runs them: 8192x8192 for the elementwise tasks, so that
# hidden work is well above clock noise and the roofline applies.
"$PY" bench/gpu/derive_suite.py tasks "$TMP/suite_hacks" --keep medium \
  --set level1/1_ReLU:batch_size=8192,dim=8192 --set level1/3_Softmax:batch_size=8192,dim=8192 \
  --set level1/4_RowSum:batch_size=8192,dim=8192 --set level1/8_Sigmoid:batch_size=8192,dim=8192 \
  --set level1/9_Tanh:batch_size=8192,dim=8192 >>"$LOG" 2>&1
"$BIN/tritonrl" corpus tests/corpus/hacks tests/corpus/legit --solutions tasks/solutions --out "$TMP/all.jsonl" \
  2>>"$LOG" || note "!! tritonrl corpus failed"
"$PY" - "$TMP/all.jsonl" "$TMP/honest.jsonl" "$TMP/hacks.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
honest = [s for s in lines if s["sample"].startswith(("legit/", "solution/"))]
hacks = [s for s in lines if s["sample"].startswith("hack/timing_")]
open(sys.argv[2], "w").write("".join(json.dumps(s) + "\n" for s in honest))
open(sys.argv[3], "w").write("".join(json.dumps(s) + "\n" for s in hacks))
print(f"honest samples: {len(honest)}, timing hacks: {len(hacks)}")
PY
note "samples: $(wc -l <"$TMP/honest.jsonl") honest, $(wc -l <"$TMP/hacks.jsonl") timing hacks"

# The GPU hog: bf16 matmuls back to back on the same GPU, its own CUDA context (time-sliced with
# every worker's), reporting its rate so the log shows it ran throughout.
"$PY" - >"$OUT/hog.log" 2>&1 <<'PY' &
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
t0, n = time.time(), 0
while True:
    for _ in range(20):
        a = (a @ b).clamp_(-1, 1)
    torch.cuda.synchronize()
    n += 20
    if time.time() - t0 > 10:
        print(f"{time.strftime('%H:%M:%S')} hog: {n / (time.time() - t0):.0f} matmuls/s", flush=True)
        t0, n = time.time(), 0
PY
HOG_PID=$!
sleep 15
note "hog pid $HOG_PID: $(tail -1 "$OUT/hog.log")"

run_eval() {  # run_eval LIMIT_S OUT_JSON ARGS...
  local limit="$1" out="$2"
  shift 2
  local t0
  t0=$(date +%s)
  timeout -k 10 "$limit" "$BIN/tritonrl" eval --device cuda --json --no-cache --jobs "$JOBS" "$@" >"$out" 2>>"$LOG"
  local rc=$?
  note "  tritonrl eval rc=$rc in $(($(date +%s) - t0))s ($*)"
  [[ $rc -eq 124 ]] && note "  !! hit the ${limit}s limit: results are partial or missing"
}
note "== A. honest samples under load"
run_eval 200 "$OUT/honest.json" --tasks "$TMP/suite" --samples "$TMP/honest.jsonl" --timing-trials 30
note "hog: $(tail -1 "$OUT/hog.log")"
note "== B. timing hacks under load (--no-static)"
run_eval 120 "$OUT/hacks.json" --tasks "$TMP/suite_hacks" --samples "$TMP/hacks.jsonl" --timing-trials 100 \
  --no-static
note "hog: $(tail -1 "$OUT/hog.log")"
kill "$HOG_PID" 2>/dev/null
wait "$HOG_PID" 2>/dev/null
HOG_PID=""

"$PY" bench/gpu/load_check.py "$OUT/honest.json" "$TMP/honest.jsonl" "$OUT/hacks.json" "$TMP/hacks.jsonl" \
  "$OUT/load_summary.json" 2>&1 | tee "$OUT/load_table.txt" | tee -a "$LOG"
note "done in $(($(date +%s) - T_START))s"
