#!/usr/bin/env bash
# A task that a null model passes cannot certify correctness (docs/tasks.md, "Weak tasks").
# The fixture suite holds the property of KernelBench level2/9_Matmul_Subtract_Multiply_ReLU (the
# reference output is zero everywhere); a wrong kernel whose output is zero too must come out
# flagged weak_task under the standard policy and incorrect (reason weak_task) under strict, warm
# and cold workers alike, pre-started (the default) or not.
#   weak_task_test.sh TRITONRL ROOT
set -euo pipefail
BIN="$1"
ROOT="$2"
HERE="$ROOT/tests/eval/weak_task"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
PY="$ROOT/.venv/bin/python"

"$PY" - "$HERE/samples/wrong_product.py" >"$T/s.jsonl" <<'PY'
import json, sys
code = open(sys.argv[1]).read()
print(json.dumps({"task": "level2/9_Matmul_Subtract_Multiply_ReLU", "sample": "wrong_product",
                  "code": code}))
PY

run() {  # run NAME EXTRA_FLAGS...
  local name="$1"
  shift
  "$BIN" eval --tasks "$HERE/suite" --samples "$T/s.jsonl" --device cpu --jobs 1 --json --no-cache \
    --work-dir "$T/work-$name" "$@" >"$T/$name.json" || true
}
run standard
run strict --policy strict
run cold --cold-workers
run fresh --prestart-workers=0

"$PY" - "$T" <<'PY'
import json, os, sys
t = sys.argv[1]
def verdict(name):
    d = json.load(open(os.path.join(t, name + ".json")))
    (s,) = d["samples"]
    return s
for name in ("standard", "cold", "fresh"):
    s = verdict(name)
    assert s["outcome"] == "correct" and "weak_task" in s["flags"], (name, s["outcome"], s["flags"], s["reasons"])
    assert "zeros" in s["evidence"]["null_models_passed"], s["evidence"].get("null_models_passed")
    assert s["sandbox"]["level"] == verdict("standard")["sandbox"]["level"]
s = verdict("strict")
assert s["outcome"] == "incorrect", (s["outcome"], s["reasons"])
assert any(r["code"] == "weak_task" for r in s["reasons"]), s["reasons"]
# Pre-started by default (a worker asked for before the pool has one starts as before).
assert verdict("standard")["sandbox"]["spawn"] in ("warm+prestarted", "warm"), verdict("standard")["sandbox"]
assert verdict("cold")["sandbox"]["spawn"] in ("cold+prestarted", "cold"), verdict("cold")["sandbox"]
assert verdict("fresh")["sandbox"]["spawn"] == "warm", verdict("fresh")["sandbox"]
print("weak_task: ok (standard: correct + weak_task, strict: incorrect, cold workers alike)")
PY
