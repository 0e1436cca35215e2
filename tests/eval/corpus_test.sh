#!/usr/bin/env bash
# The corpus test: every labelled file must end with its '# expect:' outcome
# when evaluated on the CPU (Triton interpreter, small variants, sandboxed).
#   corpus_test.sh TRITONRL ROOT corpus   hacks + legit + task solutions
#   corpus_test.sh TRITONRL ROOT faults   fault injection (test-only --no-static)
#   corpus_test.sh TRITONRL ROOT runtime  hacks with '# expect-runtime:', --no-static: the run-time
#                                         guards alone catch each for its labelled reason
#   corpus_test.sh TRITONRL ROOT resume   kill -9 mid-run, then resume from the store
#   corpus_test.sh TRITONRL ROOT summary  the plain summary's outcome and flag counts
#   corpus_test.sh TRITONRL ROOT demo-samples   samples/demo.jsonl matches the corpus
set -euo pipefail
BIN="$1"
ROOT="$2"
WHAT="$3"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
JOBS="${TRITONRL_TEST_JOBS:-2}"

case "$WHAT" in
  corpus)
    "$BIN" corpus "$ROOT/tests/corpus/hacks" "$ROOT/tests/corpus/legit" --solutions "$ROOT/tasks/solutions" \
      --device cpu --out "$T/s.jsonl"
    "$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs "$JOBS" --json --no-cache \
      --stage-timeout 120 --work-dir "$T/work" >"$T/r.json"
    "$BIN" corpus "$ROOT/tests/corpus/hacks" "$ROOT/tests/corpus/legit" --solutions "$ROOT/tasks/solutions" \
      --device cpu --check "$T/r.json"
    ;;
  faults)
    "$BIN" corpus "$ROOT/tests/corpus/faults" --device cpu --out "$T/s.jsonl"
    "$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs "$JOBS" --json --no-cache \
      --no-static --stage-timeout 15 --work-dir "$T/work" >"$T/r.json"
    "$BIN" corpus "$ROOT/tests/corpus/faults" --device cpu --check "$T/r.json"
    ;;
  runtime)
    "$BIN" corpus "$ROOT/tests/corpus/hacks" --runtime --device cpu --out "$T/s.jsonl"
    "$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs "$JOBS" --json --no-cache \
      --no-static --stage-timeout 120 --work-dir "$T/work" >"$T/r.json"
    "$BIN" corpus "$ROOT/tests/corpus/hacks" --runtime --device cpu --check "$T/r.json"
    ;;
  resume)
    # Four honest ReLU kernels; kill -9 the run after the first verdict is stored.
    for f in relu_basic relu_2d_grid relu_wrapper_function relu_method_helper; do
      "$BIN" corpus "$ROOT/tests/corpus/legit" --device cpu | grep "\"legit/$f\"" >>"$T/s.jsonl"
    done
    test "$(wc -l <"$T/s.jsonl")" -eq 4
    "$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs 1 --db "$T/r.db" \
      --work-dir "$T/work" >/dev/null 2>"$T/first.err" &
    pid=$!
    for _ in $(seq 600); do
      grep -q "eval: 1/4" "$T/first.err" && break
      sleep 0.2
    done
    grep -q "eval: 1/4" "$T/first.err" || { cat "$T/first.err"; echo "resume: no verdict before the kill" >&2; exit 1; }
    sleep 1  # let the writer commit it
    kill -9 "$pid"
    wait "$pid" || true
    "$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs 1 --db "$T/r.db" --json \
      --work-dir "$T/work2" >"$T/r.json" 2>"$T/second.err"
    cat "$T/second.err"
    grep -Eq "resuming run .*: [1-3] samples already done" "$T/second.err"
    # Every sample has exactly one verdict, all correct.
    "$ROOT/.venv/bin/python" - "$T/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = sorted(s["sample"] for s in d["samples"])
assert names == sorted(set(names)) and len(names) == 4, names
assert all(s["outcome"] == "correct" for s in d["samples"]), [s["outcome"] for s in d["samples"]]
assert 1 <= d["resumed_samples"] <= 3, d["resumed_samples"]  # the ones done before the kill
print("resume: ok,", len(names), "verdicts,", d["resumed_samples"], "resumed")
PY
    ;;
  summary)
    # The plain (non-JSON) summary counts outcomes and flags: an edge-riding sample is correct and
    # listed under its flag; an honest one is not.
    "$BIN" corpus "$ROOT/tests/corpus/hacks" "$ROOT/tests/corpus/legit" --device cpu 2>/dev/null |
      grep -E '"(hack/tolerance_edge_rider|legit/relu_basic)"' >"$T/s.jsonl"
    test "$(wc -l <"$T/s.jsonl")" -eq 2
    "$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --jobs 2 --no-cache \
      --work-dir "$T/work" >"$T/out.txt" 2>/dev/null
    cat "$T/out.txt"
    grep -Eq '^correct +2$' "$T/out.txt"
    grep -Eq '^flag +samples$' "$T/out.txt"
    grep -Eq '^near_tolerance +1$' "$T/out.txt"
    ;;
  demo-samples)
    # The committed GPU sample file is the corpus as model outputs, as scripts/demo.sh makes it.
    "$BIN" corpus "$ROOT/tests/corpus/hacks" --solutions "$ROOT/tasks/solutions" --device cuda --as-output \
      --out "$T/demo.jsonl"
    cmp "$T/demo.jsonl" "$ROOT/samples/demo.jsonl" || {
      echo "samples/demo.jsonl is stale: regenerate it with the command above" >&2
      exit 1
    }
    ;;
  *)
    echo "usage: corpus_test.sh TRITONRL ROOT corpus|faults|runtime|resume|summary|demo-samples" >&2
    exit 2
    ;;
esac
