#!/usr/bin/env bash
# data synth with a fixed seed writes the same files twice; another seed writes other files;
# held-out patterns are absent from the training split.
set -euo pipefail
TRITONRL="$1"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
"$TRITONRL" data synth --n 60 --seed 5 --out "$T/a" --no-verify > /dev/null
"$TRITONRL" data synth --n 60 --seed 5 --out "$T/b" --no-verify > /dev/null
"$TRITONRL" data synth --n 60 --seed 6 --out "$T/c" --no-verify > /dev/null
diff -r "$T/a" "$T/b"
if diff -rq "$T/a/tasks" "$T/c/tasks" > /dev/null; then
  echo "seed 6 produced the same tasks as seed 5" >&2
  exit 1
fi
test "$(ls "$T/a/tasks" | wc -l)" -eq 60
test "$(ls "$T/a/solutions" | wc -l)" -eq 60
python3 - "$T/a" <<'PY'
import json, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(f"{d}/manifest.jsonl")]
splits = json.load(open(f"{d}/splits.json"))
assert len(rows) == 60, len(rows)
by_task = {r["task"]: r for r in rows}
train = {by_task[t]["pattern"] for t in splits["train"]}
held = {by_task[t]["pattern"] for t in splits["heldout_pattern"]}
assert train and held, (train, held)
assert not (train & held), train & held
assert sorted(splits["train"] + splits["heldout_pattern"] + splits["heldout_shape"]) == sorted(by_task)
for t in splits["heldout_shape"]:
    assert by_task[t]["shape_class"] == "odd" and by_task[t]["pattern"] not in held
stats = json.load(open(f"{d}/stats.json"))
assert stats["generated"] == 60 and stats["kept"] == 60 and stats["verified"] is False
assert sum(stats["per_family"].values()) == 60 and len(stats["per_family"]) == 7
print("ok:", {k: len(v) for k, v in splits.items()})
PY
