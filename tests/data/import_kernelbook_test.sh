#!/usr/bin/env bash
# The hand-written KernelBook fixture: one honest row kept, three rejected with their reasons;
# a malformed line fails with FILE:LINE and a non-zero exit; a missing parquet file exits 2.
set -euo pipefail
TRITONRL="$1"
FIXTURE="$2"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
"$TRITONRL" data import kernelbook "$FIXTURE" --out "$T/kb.jsonl" > "$T/log"
cat "$T/log"
grep -q "^rows 4  kept 1  rejected 3$" "$T/log"
grep -q "^rejected format.no_new_class  *1$" "$T/log"
grep -q "^rejected syntax.kernel_not_launched  *1$" "$T/log"
# Inductor output that calls extern_kernels imports torch._inductor: borrowed generated code.
grep -q "^rejected func.torch_compile  *1$" "$T/log"
test "$(wc -l < "$T/kb.jsonl")" -eq 1
python3 - "$T/kb.jsonl" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert set(r) == {"prompt", "completion", "task"}, r.keys()
assert r["task"] == "kernelbook/0"
assert "class Model(nn.Module)" in r["prompt"] and "AddScale" not in r["prompt"]
assert r["completion"].startswith("<think>\n") and r["completion"].count("```") == 2
assert "class ModelNew(nn.Module)" in r["completion"] and "AddScaleNew" not in r["completion"]
PY
{ head -1 "$FIXTURE"; echo '{"python_code": "x", "entry_point": "A"}'; } > "$T/bad.jsonl"
if "$TRITONRL" data import kernelbook "$T/bad.jsonl" --out "$T/bad_out.jsonl" 2> "$T/err"; then
  echo "a malformed line was accepted" >&2
  exit 1
fi
grep -q "bad.jsonl:2: missing field 'triton_code'" "$T/err"
# Parquet goes through the parquet reader (tests/parquet has its fixtures); a missing file is an
# I/O error, exit 2.
set +e
"$TRITONRL" data import kernelbook "$T/rows.parquet" --out "$T/p.jsonl" 2> "$T/err"
rc=$?
set -e
test "$rc" -eq 2
grep -q "rows.parquet: cannot open" "$T/err"
echo ok
