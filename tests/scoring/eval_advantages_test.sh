#!/usr/bin/env bash
# `tritonrl eval --jsonl` (and --json) piped into `tritonrl advantages`: every verdict carries
# the reward inputs, rollouts of one task form a group, and the advantages equal values
# computed here by hand from the GRPO formula (docs/rl.md), not by our code.
#   eval_advantages_test.sh TRITONRL ROOT
set -euo pipefail
BIN="$1"
ROOT="$2"
PY="$ROOT/.venv/bin/python"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT

# Group level1/1_ReLU: one honest kernel and two outputs that are not Python.
# Group level1/10_SiLU: two outputs that are not Python (all rewards equal).
"$PY" - "$ROOT/tests/corpus/legit/relu_basic.py" >"$T/s.jsonl" <<'PY'
import json, sys
honest = open(sys.argv[1]).read()
rows = [("level1/1_ReLU", "honest", honest), ("level1/1_ReLU", "broken1", "def f(:\n"),
        ("level1/1_ReLU", "broken2", "class ModelNew(:\n"),
        ("level1/10_SiLU", "broken3", "def f(:\n"), ("level1/10_SiLU", "broken4", "x = (\n")]
for task, sample, code in rows:
    print(json.dumps({"task": task, "sample": sample, "code": code}))
PY
"$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs 1 --no-cache \
  --work-dir "$T/work" --jsonl "$T/v.jsonl" --json >"$T/doc.json"
"$BIN" advantages --in "$T/v.jsonl" --out "$T/a.jsonl"
"$BIN" advantages --in "$T/doc.json" --out "$T/b.jsonl"

"$PY" - "$T/v.jsonl" "$T/a.jsonl" "$T/b.jsonl" <<'PY'
import json, math, sys
verdicts = [json.loads(l) for l in open(sys.argv[1])]
assert len(verdicts) == 5, len(verdicts)
for v in verdicts:
    for key in ("syntax_ok", "functionality_ok", "valid", "compiled", "correct", "speedup", "flags"):
        assert key in v, (key, v["sample"])
by_sample = {v["sample"]: v for v in verdicts}
h = by_sample["honest"]
assert h["outcome"] == "correct" and h["valid"] and h["compiled"] and h["correct"], h["outcome"]
assert h["speedup"] is None  # no timing on the CPU
for s in ("broken1", "broken2", "broken3", "broken4"):
    v = by_sample[s]
    assert v["outcome"] == "invalid_syntax" and not v["valid"] and not v["correct"], v

# By hand: group ReLU has R_correct (1, 0, 0): mean 1/3, sample std sqrt(1/3);
# A_code = (R - mean) / (std + 1e-6); R_speedup is 0 for all (no speedup), so A_plan = 0.
std = math.sqrt(((2 / 3) ** 2 + 2 * (1 / 3) ** 2) / 2)
want_code = {"honest": (2 / 3) / (std + 1e-6), "broken1": -(1 / 3) / (std + 1e-6),
             "broken2": -(1 / 3) / (std + 1e-6), "broken3": 0.0, "broken4": 0.0}
want_filtered = {"honest": False, "broken1": False, "broken2": False, "broken3": True,
                 "broken4": True}
for path in sys.argv[2:]:
    lines = [json.loads(l) for l in open(path)]
    assert len(lines) == 5, (path, len(lines))
    for a in lines:
        s = a["sample"]
        assert abs(a["adv_code"] - want_code[s]) < 1e-9, (path, s, a["adv_code"], want_code[s])
        assert a["adv_plan"] == 0.0, (path, s, a["adv_plan"])
        assert a["r_correct"] == (1.0 if s == "honest" else 0.0), (path, s)
        assert a["filtered"] == want_filtered[s], (path, s)
print("eval -> advantages: ok; honest A_code =", round(want_code["honest"], 6))
PY
