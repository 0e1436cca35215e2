#!/usr/bin/env bash
# Every solution of a small draw over all seven families is `correct` under our evaluator
# (static verifier + sandboxed runtime, Triton interpreter, small variant); the only rejections
# allowed are weak tasks whose reference a null model matches.
set -euo pipefail
TRITONRL="$1"
PY="$2"
N="${SYNTH_TEST_N:-14}"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
"$TRITONRL" data synth --n "$N" --seed 7 --out "$T/s" --python "$PY" --jobs 2
python3 - "$T/s" "$N" <<'PYCHECK'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
stats = json.load(open(f"{d}/stats.json"))
assert stats["verified"] is True and stats["generated"] == n, stats
# Weak tasks (a null model matches the reference: the audit, or the evaluator's weak_task flag)
# are dropped by design, e.g. the row max of tanh(2x) is ~1 in every row.
bad = [r for r in stats["rejected_tasks"]
       if not r["reason"].startswith(("audit.", "weak_task"))]
assert not bad, bad
assert stats["kept"] >= n - max(2, n // 10), stats
assert len(stats["per_family"]) == 7, stats["per_family"]
print("ok:", stats["kept"], "kept of", n)
PYCHECK
