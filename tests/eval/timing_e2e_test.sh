#!/usr/bin/env bash
# The timing stage end to end on the CPU (test-only --cpu-timing: host clock,
# Triton interpreter): the engine's lease, go frame, timing and profile frames,
# re-checks and consistency checks with the real runner; a timer-patching
# candidate is caught at run time (--no-static), an honest one gets a speedup;
# without --cpu-timing a CPU verdict has no speedup and says why.
#   timing_e2e_test.sh TRITONRL ROOT
set -euo pipefail
BIN="$1"
ROOT="$2"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
"$BIN" corpus "$ROOT/tests/corpus/hacks" "$ROOT/tests/corpus/legit" --device cpu --out "$T/all.jsonl" 2>/dev/null
grep -E '"(legit/relu_basic|hack/timing_timer_patch)"' "$T/all.jsonl" >"$T/s.jsonl"
test "$(wc -l <"$T/s.jsonl")" -eq 2
export TRITONRL_LOCK_DIR="$T"
"$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --cpu-timing --timing-trials 6 --no-static \
  --json --no-cache --jobs 2 --work-dir "$T/w1" >"$T/timed.json"
"$BIN" eval --tasks "$ROOT/tasks" --samples "$T/s.jsonl" --device cpu --no-static --json --no-cache --jobs 2 \
  --work-dir "$T/w2" >"$T/plain.json"
test -f "$T/tritonrl-timing-gpu0.lock"  # the lease's lock file
"$ROOT/.venv/bin/python" - "$T/timed.json" "$T/plain.json" <<'PY'
import json, sys
timed = {s["sample"]: s for s in json.load(open(sys.argv[1]))["samples"]}
plain = {s["sample"]: s for s in json.load(open(sys.argv[2]))["samples"]}
ok = timed["legit/relu_basic"]
t = ok["evidence"]["timing"]
assert ok["outcome"] == "correct" and ok["speedup"] is not None and ok["speedup"] > 0, ok
assert t["trials"] == 6 and t["rechecked_calls"] == 3 and t["inconsistencies"] == [] and t["recheck_failures"] == [], t
assert t["candidate_event_ms"]["n"] == 6 and t["reference_event_ms"]["n"] == 6 and t["parent_phase_ms"] > 0, t
assert "timing" in ok["timings_ms"], ok["timings_ms"]
bad = timed["hack/timing_timer_patch"]
assert bad["outcome"] == "incorrect" and "timing_inconsistent" in bad["flags"] and bad["speedup"] is None, bad
assert any(r["code"] == "timing_inconsistent" and "time.perf_counter" in r["message"] for r in bad["reasons"]), bad
p = plain["legit/relu_basic"]
assert p["outcome"] == "correct" and p["speedup"] is None and "skipped" in p["evidence"]["timing"], p
print("timing e2e: ok; cpu-timed speedup", ok["speedup"])
PY
