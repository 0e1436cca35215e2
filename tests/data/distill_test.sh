#!/usr/bin/env bash
# data distill against the stand-in server: 2 tasks x k=3. A first run limited to 4 requests,
# then a resumed run: the server answers exactly 6 requests in all (none repeated), and the
# counts match the canned answers: per task one correct (ReLU only), one without code, one
# torch cheat; the Sigmoid task's "correct" answer is a ReLU kernel, so it is incorrect.
set -euo pipefail
TRITONRL="$1"
PY="$2"
TASKS="$3"
HERE="$(cd "$(dirname "$0")" && pwd)"
T="$(mktemp -d)"
mkdir -p "$T/suite"
cp "$TASKS/level1/1_ReLU.py" "$TASKS/level1/8_Sigmoid.py" "$T/suite/"
python3 "$HERE/fake_openai_server.py" "$T/port" "$TASKS/solutions/level1/1_ReLU.py" &
SERVER=$!
trap 'kill $SERVER; rm -rf "$T"' EXIT
for _ in $(seq 50); do [[ -s "$T/port" ]] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$T/port")"
ARGS=(--endpoint "$URL" --model teacher --tasks "$T/suite" --out "$T/d.jsonl" --k 3
      --concurrency 2 --backoff 0.05 --python "$PY" --jobs 2)
"$TRITONRL" data distill "${ARGS[@]}" --max-requests 4 | tee "$T/log1"
grep -q "^requests 6  finished 4  new 4 " "$T/log1"
"$TRITONRL" data distill "${ARGS[@]}" | tee "$T/log2"
grep -q "^requests 6  finished 6  new 2  accepted 1  dropped 5$" "$T/log2"
python3 - "$T" "$URL" <<'PYCHECK'
import json, sys, urllib.request
t, url = sys.argv[1:3]
count = json.load(urllib.request.urlopen(url + "/count"))
assert count["answered"] == 6, count
assert count["seen"] > 6, count  # some 503s were retried
stats = json.load(open(f"{t}/d.jsonl.stats.json"))
d = stats["dropped"]
assert stats["accepted"] == 1, stats
assert d.get("invalid_syntax:static.syntax.no_code", 0) == 2, d
assert sum(v for k, v in d.items() if k.startswith("invalid_functionality")) == 2, d
assert sum(v for k, v in d.items() if k.startswith("incorrect")) == 1, d
rec = [json.loads(l) for l in open(f"{t}/d.jsonl")]
assert len(rec) == 1 and rec[0]["task"] == "1_ReLU" and "```python" in rec[0]["completion"]
ledger = [json.loads(l) for l in open(f"{t}/d.jsonl.ledger.jsonl")]
keys = [(e["task"], e["index"]) for e in ledger]
assert len(keys) == len(set(keys)) == 6, keys
print("ok")
PYCHECK
