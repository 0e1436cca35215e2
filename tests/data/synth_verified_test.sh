#!/usr/bin/env bash
# Every solution of a 42-task draw over all seven families is `correct` under our evaluator
# (static verifier + sandboxed runtime, Triton interpreter, small variant) and every reference
# passes the null-model audit.
set -euo pipefail
TRITONRL="$1"
PY="$2"
N="${SYNTH_TEST_N:-42}"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
"$TRITONRL" data synth --n "$N" --seed 7 --out "$T/s" --python "$PY" --jobs 2 --keep-work
python3 - "$T/s" "$N" <<'PYCHECK'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
stats = json.load(open(f"{d}/stats.json"))
assert stats["verified"] is True and stats["generated"] == n, stats
# No solution is wrong. Weak tasks (a null model matches the reference) would be dropped, but the
# generator no longer draws the compositions the H200 audit found weak (the row max of relu, abs
# before square, a scale of 1.0, ...), so this draw keeps every task.
bad = [r for r in stats["rejected_tasks"]
       if not r["reason"].startswith(("audit.", "weak_task"))]
assert not bad, bad
assert stats["kept"] == n, stats["rejected_tasks"]
assert len(stats["per_family"]) == 7, stats["per_family"]
print("ok:", stats["kept"], "kept of", n)
PYCHECK
# The same draw again: every verdict comes from the kept verify.db (a run stopped part-way on the
# GPU resumes the same way), and the result is the same.
cp "$T/s/stats.json" "$T/first_stats.json"
# The null-model audit resumes too (audit.jsonl): a line cut short by a kill is skipped, and only
# that task is audited again.
python3 - "$T/s/.verify/audit.jsonl" <<'PYCUT'
import sys
p = sys.argv[1]
lines = open(p).read().splitlines(keepends=True)
open(p, "w").write("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
PYCUT
"$TRITONRL" data synth --n "$N" --seed 7 --out "$T/s" --python "$PY" --jobs 2 2>"$T/again.log"
grep -E "tritonrl data: [0-9]+ verdicts resumed and [0-9]+ from the cache" "$T/again.log"
grep -E "tritonrl data synth: $((N - 1)) audits resumed" "$T/again.log"
python3 - "$T/again.log" "$N" "$T/first_stats.json" "$T/s/stats.json" <<'PYCHECK'
import json, re, sys
log, n = open(sys.argv[1]).read(), int(sys.argv[2])
m = re.search(r"(\d+) verdicts resumed and (\d+) from the cache", log)
assert m and int(m.group(1)) + int(m.group(2)) >= n - 2, log[-2000:]
a, b = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
assert a["kept"] == b["kept"] and a["rejected_tasks"] == b["rejected_tasks"], (a, b)
print("ok: the second run reused", m.group(0))
PYCHECK
