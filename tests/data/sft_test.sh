#!/usr/bin/env bash
# data sft over the built-in suite: one record per task with a solution, each a prompt holding
# the reference and a completion of <think>plan</think> plus one python block whose code parses
# with our pyast (tritonrl parse) and is the solution file byte for byte.
set -euo pipefail
TRITONRL="$1"
PY="$2"
TASKS="$3"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
"$TRITONRL" data sft --tasks "$TASKS" --out "$T/sft.jsonl"
want="$(ls "$TASKS"/solutions/level*/*.py | wc -l)"
test "$(wc -l < "$T/sft.jsonl")" -eq "$want"
"$PY" - "$T/sft.jsonl" "$TASKS" "$T" <<'PYCHECK'
import json, os, re, sys
path, tasks, tmp = sys.argv[1:4]
for i, line in enumerate(open(path)):
    r = json.loads(line)
    assert set(r) == {"prompt", "completion", "task"}, r.keys()
    ref = open(os.path.join(tasks, r["task"] + ".py")).read()
    assert ref in r["prompt"], r["task"]
    m = re.fullmatch(r"<think>\n(.+)\n</think>\n\n```python\n(.*)```\n", r["completion"], re.S)
    assert m, r["task"]
    assert m.group(1).strip() and "```" not in m.group(1)
    code = m.group(2)
    assert "```" not in code
    assert code == open(os.path.join(tasks, "solutions", r["task"] + ".py")).read(), r["task"]
    open(os.path.join(tmp, f"code_{i}.py"), "w").write(code)
print("records ok")
PYCHECK
for f in "$T"/code_*.py; do "$TRITONRL" parse "$f" > /dev/null; done
# A synth folder gives one record per kept task with the manifest's plan.
"$TRITONRL" data synth --n 7 --seed 3 --out "$T/s" --no-verify > /dev/null
"$TRITONRL" data sft --tasks "$T/s" --out "$T/s.jsonl"
test "$(wc -l < "$T/s.jsonl")" -eq 7
# A folder that does not exist is an I/O error: exit 2, naming it.
rc=0
"$TRITONRL" data sft --tasks "$T/nonexistent" --out "$T/x.jsonl" 2>"$T/err" || rc=$?
test "$rc" -eq 2
grep -q "$T/nonexistent" "$T/err"
test ! -e "$T/x.jsonl"
echo ok
