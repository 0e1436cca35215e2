#!/usr/bin/env bash
# tritonrl bench over real HTTP (docs/bench.md):
#  1. against our own `tritonrl serve --model builtin:tiny` (libtorch builds): two tasks, k=2;
#     the JSON's metrics equal those recomputed here from the per-sample verdicts;
#     the HTML has its per-level rows;
#  2. against the stand-in server (tests/data/fake_openai_server.py: a correct ReLU kernel, prose,
#     a torch cheat, a 503 every fourth request): the task whose reference raises is reported as
#     the task's failure, in no figure and not in pass@k, the metrics recomputed here; a run
#     killed with SIGKILL mid-scoring and run again gives the same results as a run never killed.
set -euo pipefail
TRITONRL="$1"
PY="$2"
TASKS="$3"
HERE="$(cd "$(dirname "$0")" && pwd)"
T="$(mktemp -d)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/suite/level1"
cp "$TASKS/level1/1_ReLU.py" "$T/suite/level1/1_ReLU.py"
# A reference that cannot run: get_inputs raises.
sed 's/^def get_inputs():/def get_inputs():\n    raise RuntimeError("this reference is broken on purpose")/' \
  "$TASKS/level1/1_ReLU.py" > "$T/suite/level1/2_BrokenRef.py"
grep -q "broken on purpose" "$T/suite/level1/2_BrokenRef.py"

wait_port() {  # FILE LOG
  for _ in $(seq 300); do [[ -s "$1" ]] && return 0; sleep 0.2; done
  cat "$2"; return 1
}
COMMON=(--tasks "$T/suite" --k 2 --max-tokens 64 --python "$PY" --device cpu --jobs 2
        --retries 6 --backoff 0.05 --pass-k 1,2)

# ---- 1. our own server, builtin:tiny
if [[ "${BENCH_SKIP_SERVE:-0}" != 1 ]]; then
  "$TRITONRL" serve --tasks "$T/suite" --port 0 --port-file "$T/port" --state-dir "$T/state" \
    --model builtin:tiny --max-tokens 64 --python "$PY" > "$T/serve.log" 2>&1 &
  PIDS+=($!)
  wait_port "$T/port" "$T/serve.log"
  "$TRITONRL" bench --endpoint "http://127.0.0.1:$(cat "$T/port")" --model builtin:tiny \
    --out "$T/tiny" "${COMMON[@]}" | tee "$T/tiny.log"
  # The tiny random policy writes no valid code: every sample is rejected statically, so no
  # reference runs and the broken one is not found here (part 2 finds it).
  "$PY" "$HERE/check_bench.py" "$T/tiny" --samples 2
  grep -q "^bench: 4 of 4 samples received and scored" "$T/tiny.log"
fi

# ---- 2. the stand-in server, killed and resumed
start_fake() {  # NAME
  "$PY" "$TASKS/../tests/data/fake_openai_server.py" "$T/$1.port" \
    "$TASKS/solutions/level1/1_ReLU.py" > "$T/$1.server.log" 2>&1 &
  PIDS+=($!)
  wait_port "$T/$1.port" "$T/$1.server.log"
}
start_fake clean
"$TRITONRL" bench --endpoint "http://127.0.0.1:$(cat "$T/clean.port")" --model fake \
  --concurrency 1 --out "$T/clean" "${COMMON[@]}" > "$T/clean.log"
"$PY" "$HERE/check_bench.py" "$T/clean" --failed level1/2_BrokenRef --samples 2 --min-correct 1

start_fake killed
URL="http://127.0.0.1:$(cat "$T/killed.port")"
"$TRITONRL" bench --endpoint "$URL" --model fake --concurrency 1 --out "$T/killed" \
  "${COMMON[@]}" > "$T/killed1.log" 2>&1 &
RUN=$!
# Every answer is in the ledger and scoring has started: kill it there.
for _ in $(seq 600); do
  if [[ -f "$T/killed/ledger.jsonl" && "$(wc -l < "$T/killed/ledger.jsonl")" -ge 4 ]] &&
     grep -q "bench: scoring" "$T/killed1.log"; then break; fi
  sleep 0.1
done
kill -9 "$RUN"; wait "$RUN" 2>/dev/null || true
test ! -f "$T/killed/bench.json"
"$TRITONRL" bench --endpoint "$URL" --model fake --concurrency 1 --out "$T/killed" \
  "${COMMON[@]}" > "$T/killed2.log" 2>&1 || { cat "$T/killed2.log"; exit 1; }
grep -q "bench: 4 requests, 4 answered by earlier runs" "$T/killed2.log"
"$PY" "$HERE/check_bench.py" "$T/killed" --failed level1/2_BrokenRef --samples 2 \
  --same-as "$T/clean"
# Another prompt into the same folder is refused, naming what differs.
if "$TRITONRL" bench --endpoint "$URL" --model other --out "$T/killed" "${COMMON[@]}" \
  > "$T/other.log" 2>&1; then echo "a run with another model was accepted"; exit 1; fi
grep -q "another model" "$T/other.log"
echo ok
