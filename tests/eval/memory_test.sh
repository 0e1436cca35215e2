#!/usr/bin/env bash
# Bounded memory and admission control of `tritonrl eval` on the CPU path (docs/eval.md).
#   memory_test.sh TRITONRL ROOT memory     a 256 MiB output, 3 samples on 3 jobs: verdicts right,
#                                           peak RSS of tritonrl under its 16 KiB-output baseline
#                                           + 128 MiB (half of one output)
#   memory_test.sh TRITONRL ROOT admission  a sample whose estimate exceeds --memory-budget-mb is
#                                           resource_exhausted; the others' verdicts are intact
#   memory_test.sh TRITONRL ROOT large_output  outputs over --large-output-mb: 2 trials, not 5
#   memory_test.sh TRITONRL ROOT spill      two references that do not fit --spill-budget-mb at
#                                           once: one waits for the other's spill, no
#                                           resource_exhausted
# The fixture suite (tests/eval/fixtures/memory) is not part of tasks/.
set -euo pipefail
BIN="$1"
ROOT="$2"
WHAT="$3"
PY="$ROOT/.venv/bin/python"
FIX="$ROOT/tests/eval/fixtures/memory"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT

# samples.jsonl from "SAMPLE TASK SOLUTION_FILE [wrong]" lines on stdin.
make_samples() {
  "$PY" -c '
import json, sys
for line in sys.stdin:
    sample, task, path, *how = line.split()
    code = open(path).read()
    if how == ["wrong"]:  # off by one everywhere: not_allclose
        code = code.replace("a[:, None] * b[None, :]", "a[:, None] * b[None, :] + 1.0")
        assert "+ 1.0" in code
    print(json.dumps({"task": task, "sample": sample, "code": code}))
'
}

case "$WHAT" in
  memory)
    printf '%s\n' "honest1 level1/1_OuterProduct $FIX/solutions/1_OuterProduct.py" \
      "honest2 level1/1_OuterProduct $FIX/solutions/1_OuterProduct.py" \
      "wrong level1/1_OuterProduct $FIX/solutions/1_OuterProduct.py wrong" | make_samples >"$T/big.jsonl"
    printf '%s\n' "small1 level1/2_Scale $FIX/solutions/2_Scale.py" \
      "small2 level1/2_Scale $FIX/solutions/2_Scale.py" \
      "small3 level1/2_Scale $FIX/solutions/2_Scale.py" | make_samples >"$T/small.jsonl"
    # The peak RSS of the tritonrl process itself (VmHWM; /usr/bin/time -v would report the
    # largest of its descendants, i.e. a worker): the same 3-job run on 16 KiB outputs gives the
    # baseline (the binary, libtorch's pages, three threads), the 256 MiB outputs the growth.
    peak_kb() {  # peak_kb NAME SAMPLES: runs eval, prints its VmHWM in kB
      "$BIN" eval --tasks "$FIX" --samples "$2" --device cpu --jobs 3 --json --no-cache \
        --stage-timeout 300 --work-dir "$T/work-$1" >"$T/$1.json" &
      local pid=$! hwm=0 v
      while kill -0 "$pid" 2>/dev/null; do
        v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [[ -n "$v" ]] && hwm=$v
        sleep 0.1
      done
      wait "$pid"
      echo "$hwm"
    }
    base_kb=$(peak_kb small "$T/small.jsonl")
    big_kb=$(peak_kb big "$T/big.jsonl")
    echo "peak RSS of tritonrl: $((base_kb / 1024)) MiB with 16 KiB outputs, $((big_kb / 1024)) MiB with" \
      "256 MiB outputs (3 jobs, 3 samples x 5 trials)"
    "$PY" - "$T/big.json" "$T/small.json" "$base_kb" "$big_kb" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {s["sample"]: s for s in d["samples"]}
for name in ("honest1", "honest2"):
    assert got[name]["outcome"] == "correct", (name, got[name]["outcome"], got[name]["reasons"])
    assert got[name]["evidence"]["trials_checked"] == 5, got[name]["evidence"]
wrong = got["wrong"]
assert wrong["outcome"] == "incorrect", wrong
assert [r["code"] for r in wrong["reasons"]] == ["not_allclose"], wrong["reasons"]
assert "67108864 of 67108864 elements" in wrong["reasons"][0]["message"], wrong["reasons"][0]
small = json.load(open(sys.argv[2]))
assert all(s["outcome"] == "correct" for s in small["samples"]), small["samples"]
# The bound does not grow with the output size or the jobs' outputs: each job holds at most a
# frame of 16 MiB (the engine's limit; the runner sends 4 MiB) and the matching reference slice.
# One output alone is 256 MiB; the old engine held every reference trial (1.25 GiB) plus each
# job's whole output, twice.
growth_mib = (int(sys.argv[4]) - int(sys.argv[3])) / 1024
assert growth_mib < 128, f"peak RSS grew by {growth_mib:.0f} MiB >= 128 MiB over the baseline"
PY
    ;;
  admission)
    printf '%s\n' "big level1/1_OuterProduct $FIX/solutions/1_OuterProduct.py" \
      "small1 level1/2_Scale $FIX/solutions/2_Scale.py" \
      "small2 level1/2_Scale $FIX/solutions/2_Scale.py" | make_samples >"$T/s.jsonl"
    # 1500 MiB: a worker's 768 MiB base fits, the outer product's 768 MiB + 3 x 256 MiB does not.
    "$BIN" eval --tasks "$FIX" --samples "$T/s.jsonl" --device cpu --jobs 2 --json --no-cache \
      --stage-timeout 300 --memory-budget-mb 1500 --work-dir "$T/work" --db "$T/r.db" >"$T/r.json"
    "$PY" - "$T/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {s["sample"]: s for s in d["samples"]}
big = got["big"]
assert big["outcome"] == "resource_exhausted", big
assert big["reasons"][0]["code"] == "resource_exhausted", big["reasons"]
assert big["evidence"]["admission"]["host_budget_bytes"] == 1500 << 20, big["evidence"]
assert big["evidence"]["admission"]["host_bytes_estimate"] > 1500 << 20, big["evidence"]
for name in ("small1", "small2"):
    assert got[name]["outcome"] == "correct", (name, got[name])
    # 768 MiB base + 3 x (16 KiB of input + 16 KiB of output)
    assert got[name]["evidence"]["admission"]["host_bytes_estimate"] == (768 << 20) + 3 * 32768, got[name]["evidence"]
PY
    ;;
  large_output)
    # --large-output-mb 100: the 256 MiB outputs make the reference run only --large-trials (2)
    # trials, the secret one among them, and the candidate runs the same ones; the 16 KiB task
    # keeps all 5.
    printf '%s\n' "honest level1/1_OuterProduct $FIX/solutions/1_OuterProduct.py" \
      "wrong level1/1_OuterProduct $FIX/solutions/1_OuterProduct.py wrong" \
      "small level1/2_Scale $FIX/solutions/2_Scale.py" | make_samples >"$T/s.jsonl"
    "$BIN" eval --tasks "$FIX" --samples "$T/s.jsonl" --device cpu --jobs 2 --json --no-cache \
      --stage-timeout 300 --large-output-mb 100 --work-dir "$T/work" >"$T/r.json"
    "$PY" - "$T/r.json" <<'PY'
import json, sys
got = {s["sample"]: s for s in json.load(open(sys.argv[1]))["samples"]}
honest, wrong, small = got["honest"], got["wrong"], got["small"]
assert honest["outcome"] == "correct", honest["reasons"]
assert honest["evidence"]["trials_checked"] == 2 and honest["evidence"]["trials_expected"] == 2, honest["evidence"]
assert wrong["outcome"] == "incorrect" and wrong["reasons"][0]["code"] == "not_allclose", wrong["reasons"]
assert small["outcome"] == "correct" and small["evidence"]["trials_checked"] == 5, small["evidence"]
PY
    ;;
  spill)
    # Two tasks with 256 MiB outputs (2 trials each under --large-output-mb 100: 512 MiB of spill
    # a reference) on 2 jobs, with a 700 MiB spill budget on disk behind a 300 MiB memory tier:
    # the first reference's outputs are split between memory and disk (its compares read across
    # the boundary), and the two references cannot be spilled at once. The one that runs out
    # waits until the other task's samples are done (which frees its spill), then runs again:
    # every sample gets its real verdict, none resource_exhausted.
    cp -r "$FIX" "$T/suite"
    cp "$FIX/level1/1_OuterProduct.py" "$T/suite/level1/3_OuterProductCopy.py"
    printf '%s\n' "a1 level1/1_OuterProduct $FIX/solutions/1_OuterProduct.py" \
      "a2 level1/1_OuterProduct $FIX/solutions/1_OuterProduct.py wrong" \
      "b1 level1/3_OuterProductCopy $FIX/solutions/1_OuterProduct.py" \
      "b2 level1/3_OuterProductCopy $FIX/solutions/1_OuterProduct.py wrong" | make_samples >"$T/s.jsonl"
    "$BIN" eval --tasks "$T/suite" --samples "$T/s.jsonl" --device cpu --jobs 2 --json --no-cache \
      --stage-timeout 300 --large-output-mb 100 --spill-budget-mb 700 --spill-memory-mb 300 \
      --work-dir "$T/work" >"$T/r.json"
    "$PY" - "$T/r.json" <<'PY'
import json, sys
got = {s["sample"]: s for s in json.load(open(sys.argv[1]))["samples"]}
for name in ("a1", "b1"):
    assert got[name]["outcome"] == "correct", (name, got[name]["reasons"])
for name in ("a2", "b2"):
    assert got[name]["outcome"] == "incorrect", (name, got[name]["reasons"])
    assert got[name]["reasons"][0]["code"] == "not_allclose", (name, got[name]["reasons"])
waited = [n for n, s in got.items() if "reference_space_wait" in s["timings_ms"]]
# One reference, or both when they ran out together (each then runs again in turn).
assert waited, "no reference waited for spill space: the two never overlapped"
print("spill: references that waited:",
      {n: round(got[n]["timings_ms"]["reference_space_wait"]) for n in waited}, "ms")
PY
    ;;
  *)
    echo "memory_test.sh: unknown test $WHAT" >&2
    exit 2
    ;;
esac
echo "memory_test $WHAT: ok"
