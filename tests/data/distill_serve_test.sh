#!/usr/bin/env bash
# data distill against our own server, `tritonrl serve --model builtin:tiny` (a randomly
# initialised tiny policy): every request is answered and recorded in the ledger, and the tiny
# model's outputs are rejected by the verifier, which the counts say (accepted 0).
set -euo pipefail
TRITONRL="$1"
PY="$2"
TASKS="$3"
T="$(mktemp -d)"
mkdir -p "$T/suite"
cp "$TASKS/level1/1_ReLU.py" "$T/suite/"
"$TRITONRL" serve --tasks "$T/suite" --port 0 --port-file "$T/port" --state-dir "$T/state" \
  --model builtin:tiny --max-tokens 64 --python "$PY" > "$T/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER; wait $SERVER 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 300); do [[ -s "$T/port" ]] && break; sleep 0.2; done
[[ -s "$T/port" ]] || { cat "$T/serve.log"; exit 1; }
URL="http://127.0.0.1:$(cat "$T/port")"
"$TRITONRL" data distill --endpoint "$URL" --model tiny --tasks "$T/suite" --out "$T/d.jsonl" \
  --k 3 --max-tokens 64 --python "$PY" | tee "$T/log"
grep -q "^requests 3  finished 3  new 3  accepted 0  dropped 3$" "$T/log"
test "$(wc -l < "$T/d.jsonl.ledger.jsonl")" -eq 3
test ! -s "$T/d.jsonl"
# A rerun sends nothing new.
"$TRITONRL" data distill --endpoint "$URL" --model tiny --tasks "$T/suite" --out "$T/d.jsonl" \
  --k 3 --max-tokens 64 --python "$PY" | tee "$T/log2"
grep -q "^requests 3  finished 3  new 0  accepted 0  dropped 3$" "$T/log2"
echo ok
