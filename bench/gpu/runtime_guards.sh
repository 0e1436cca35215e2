#!/usr/bin/env bash
# The run-time layer alone on the H200 (test-only --no-static): every '# expect-runtime:' hack
# must be caught for its labelled reason, and every fault-injection candidate must end as
# labelled. The part of bench/gpu/eval.sh after its corpus pass, for a call with less time.
#   BIN=<folder with tritonrl> OUT=<out> bench/gpu/runtime_guards.sh
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BIN="${BIN:?}"
source "$ROOT/bench/gpu/libpath.sh"
OUT="${OUT:?}"
mkdir -p "$OUT"
export TRITONRL_RUNNER_DIR="$ROOT/python" TRITONRL_PYTHON="${TRITONRL_PYTHON:-$(command -v python3)}"
TMP="$(mktemp -d)"
"$TRITONRL_PYTHON" bench/gpu/derive_suite.py tasks "$TMP/suite" --keep medium >/dev/null
"$BIN/tritonrl" corpus tests/corpus/hacks --runtime --device cuda --out "$TMP/runtime.jsonl"
"$BIN/tritonrl" eval --device cuda --tasks "$TMP/suite" --samples "$TMP/runtime.jsonl" --jobs 16 --json \
  --no-static --no-cache >"$OUT/runtime.json" 2>"$OUT/runtime.log"
"$BIN/tritonrl" corpus tests/corpus/hacks --runtime --check "$OUT/runtime.json" >"$OUT/runtime_check.txt" 2>&1
echo "runtime check rc=$?" | tee -a "$OUT/runtime_check.txt"
"$BIN/tritonrl" corpus tests/corpus/faults --device cuda --out "$TMP/faults.jsonl"
"$BIN/tritonrl" eval --device cuda --tasks "$TMP/suite" --samples "$TMP/faults.jsonl" --jobs 16 --json \
  --no-static --no-cache --stage-timeout 30 >"$OUT/faults.json" 2>"$OUT/faults.log"
"$BIN/tritonrl" corpus tests/corpus/faults --device cuda --check "$OUT/faults.json" >"$OUT/faults_check.txt" 2>&1
echo "faults check rc=$?" | tee -a "$OUT/faults_check.txt"
