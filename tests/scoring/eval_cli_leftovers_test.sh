#!/usr/bin/env bash
# `tritonrl eval` without --db on the CPU interpreter: it leaves nothing behind in TMPDIR (no
# results database, no empty work folder), whether it succeeds or fails on a bad sample file,
# and where a correct sample was not timed it prints fast_1 as n/a (table) and null (JSON),
# not 0.
#   eval_cli_leftovers_test.sh TRITONRL ROOT
set -euo pipefail
BIN="$1"
ROOT="$2"
PY="$ROOT/.venv/bin/python"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
mkdir "$T/tmp"

"$PY" - "$ROOT/tests/corpus/legit/relu_basic.py" >"$T/s.jsonl" <<'PY'
import json, sys
print(json.dumps({"task": "level1/1_ReLU", "sample": "honest", "code": open(sys.argv[1]).read()}))
PY
TMPDIR="$T/tmp" "$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs 1 \
  >"$T/table.txt" 2>"$T/err.txt"
left="$(ls -A "$T/tmp")"
[[ -z "$left" ]] || { echo "a successful eval left in TMPDIR: $left" >&2; exit 1; }
grep -Eq '^all +1 +100\.0% +100\.0% +100\.0% +n/a ' "$T/table.txt" ||
  { echo "fast_1 is not n/a for an untimed correct sample:" >&2; cat "$T/table.txt" >&2; exit 1; }
grep -q "a temporary database, removed at exit" "$T/table.txt" ||
  { echo "the table names a database that no longer exists:" >&2; cat "$T/table.txt" >&2; exit 1; }

TMPDIR="$T/tmp" "$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs 1 \
  --json >"$T/doc.json" 2>"$T/err.txt"
"$PY" - "$T/doc.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
overall = doc["summary"]["overall"]
assert overall["correct"] == 1.0, overall
assert overall["fast_p"]["fast_1"] is None, overall["fast_p"]
assert overall["pass_at_k"]["fast_1@1"] is None and overall["pass_at_k"]["correct@1"] == 1.0, overall
PY
left="$(ls -A "$T/tmp")"
[[ -z "$left" ]] || { echo "eval --json left in TMPDIR: $left" >&2; exit 1; }

# A bad line after a good one: exit 2 naming FILE:LINE, and still nothing left behind.
echo '{"task": "level1/1_ReLU", "sample": "no-code"}' >>"$T/s.jsonl"
set +e
TMPDIR="$T/tmp" "$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs 1 \
  >/dev/null 2>"$T/err.txt"
rc=$?
set -e
[[ $rc -eq 2 ]] || { echo "bad sample file: exit $rc, expected 2" >&2; exit 1; }
grep -q "s.jsonl:2:" "$T/err.txt" || { echo "no FILE:LINE in:" >&2; cat "$T/err.txt" >&2; exit 1; }
left="$(ls -A "$T/tmp")"
[[ -z "$left" ]] || { echo "a failed eval left in TMPDIR: $left" >&2; exit 1; }
echo "eval leaves nothing behind; fast_1 n/a when untimed"
