#!/usr/bin/env bash
# GPU run of the evaluation engine (coordinator runs this on the H200 machine).
#
# Evaluates the whole labelled corpus (tests/corpus/hacks + legit, every task
# solution, all variants) with the sandboxed engine on the GPU, checks every
# '# expect:' label, runs the fault-injection candidates (with the test-only
# --no-static), re-runs the corpus once more to show the verdict cache, and
# prints a summary table. Needs: $BIN/tritonrl (built on the CPU machine),
# python3 with torch and triton, the repository as the working directory.
# Writes under $OUT (at most 8 files): eval_corpus.json, corpus_check.txt,
# faults_check.txt, runtime_check.txt, report.html, results.db, eval.log, summary.txt.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BIN="${BIN:?set BIN to the folder holding tritonrl}"
source "$ROOT/bench/gpu/libpath.sh"
OUT="${OUT:?set OUT to the output folder}"
mkdir -p "$OUT"
export TRITONRL_RUNNER_DIR="$ROOT/python"
export TRITONRL_PYTHON="${TRITONRL_PYTHON:-$(command -v python3)}"
JOBS="${EVAL_JOBS:-4}"
TASKS="${EVAL_TASKS:-tasks}"  # e.g. a one-variant copy from bench/gpu/derive_suite.py
LOG="$OUT/eval.log"
TMP="$(mktemp -d)"
: >"$LOG"

note() { echo "$*" | tee -a "$LOG"; }
note "eval.sh: $(date -u +%FT%TZ) host $(hostname)"
note "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
note "python: $("$TRITONRL_PYTHON" -c 'import sys,torch,triton; print(sys.version.split()[0], torch.__version__, triton.__version__, torch.cuda.is_available())' 2>&1)"

"$BIN/tritonrl" corpus tests/corpus/hacks tests/corpus/legit --solutions tasks/solutions --out "$TMP/corpus.jsonl" 2>>"$LOG"
# The smoke sample is taken before any subset, which may leave it out.
grep '"legit/relu_basic"' "$TMP/corpus.jsonl" >"$TMP/smoke.jsonl"
# EVAL_CORPUS_MATCH="<word> ...": only the samples whose name (hack/NAME, legit/NAME,
# solution/...) contains one of the words; the label check then reports the others as "no
# verdict", and the summary counts the subset (with EVAL_CORPUS_ONLY=1).
if [[ -n "${EVAL_CORPUS_MATCH:-}" ]]; then
  alternatives="$(tr -s ' ' '|' <<<"${EVAL_CORPUS_MATCH}" | sed 's/^|//; s/|$//')"
  grep -E "\"sample\": *\"[^\"]*(${alternatives})" "$TMP/corpus.jsonl" >"$TMP/subset.jsonl" || true
  mv "$TMP/subset.jsonl" "$TMP/corpus.jsonl"
  note "subset: $(wc -l <"$TMP/corpus.jsonl") samples match '${EVAL_CORPUS_MATCH}'"
fi
"$BIN/tritonrl" corpus tests/corpus/faults --out "$TMP/faults.jsonl" 2>>"$LOG"
"$BIN/tritonrl" corpus tests/corpus/hacks --runtime --out "$TMP/runtime.jsonl" 2>>"$LOG"

# 1. Smoke: one honest kernel, sandboxed; if the sandbox breaks CUDA here, say so loudly.
"$BIN/tritonrl" eval --device cuda --tasks "$TASKS" --samples "$TMP/smoke.jsonl" --json --no-cache \
  >"$TMP/smoke.json" 2>>"$LOG"
smoke="$("$TRITONRL_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["samples"][0]; print(s["outcome"], s["sandbox"].get("level"), json.dumps(s["reasons"])[:400])' "$TMP/smoke.json" 2>&1)"
note "smoke (sandboxed relu_basic on cuda): $smoke"
# EVAL_EXTRA: extra flags for the corpus run (e.g. "--timing-trials 10" to fit a time budget).
read -r -a EXTRA <<<"${EVAL_EXTRA:-}"
if [[ "$smoke" != correct* ]]; then
  "$BIN/tritonrl" eval --device cuda --tasks "$TASKS" --samples "$TMP/smoke.jsonl" --json --no-cache --no-sandbox \
    >"$TMP/smoke2.json" 2>>"$LOG"
  smoke2="$("$TRITONRL_PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["samples"][0]; print(s["outcome"], json.dumps(s["reasons"])[:400])' "$TMP/smoke2.json" 2>&1)"
  note "smoke without sandbox: $smoke2"
  if [[ "$smoke2" == correct* ]]; then
    note "WARNING: the sandbox breaks CUDA on this machine; the corpus runs with --no-sandbox (test-only)"
    EXTRA+=(--no-sandbox)
  fi
fi

# 2. The corpus, all variants, timed.
t0=$(date +%s.%N)
"$BIN/tritonrl" eval --device cuda --tasks "$TASKS" --samples "$TMP/corpus.jsonl" --jobs "$JOBS" --json \
  --db "$OUT/results.db" --report "$OUT/report.html" "${EXTRA[@]}" >"$OUT/eval_corpus.json" 2>>"$LOG"
rc_eval=$?
t1=$(date +%s.%N)
"$BIN/tritonrl" corpus tests/corpus/hacks tests/corpus/legit --solutions tasks/solutions \
  --check "$OUT/eval_corpus.json" >"$OUT/corpus_check.txt" 2>&1
rc_corpus=$?

# EVAL_CORPUS_ONLY=1: stop after the label check (a call too short for the other passes).
if [[ "${EVAL_CORPUS_ONLY:-0}" == 1 ]]; then
  { echo "corpus only: $(wc -l <"$TMP/corpus.jsonl") samples in $(python3 -c "print(round($t1 - $t0, 1))") s (eval rc $rc_eval); label check rc $rc_corpus"
    if [[ -n "${EVAL_CORPUS_MATCH:-}" ]]; then
      echo "subset: $(grep -c '^ok' "$OUT/corpus_check.txt") of $(wc -l <"$TMP/corpus.jsonl") met their label"
      grep '^FAIL' "$OUT/corpus_check.txt" | grep -v 'no verdict' | head -40
    else
      tail -n 1 "$OUT/corpus_check.txt"; grep '^FAIL' "$OUT/corpus_check.txt" | head -40
    fi; } | tee "$OUT/summary.txt" | tee -a "$LOG"
  rm -rf "$TMP"; exit 0
fi

# 3. Faults (test-only: the static stage would reject them).
"$BIN/tritonrl" eval --device cuda --tasks "$TASKS" --samples "$TMP/faults.jsonl" --jobs "$JOBS" --json --no-static \
  --no-cache --stage-timeout 60 >"$TMP/faults.json" 2>>"$LOG"
"$BIN/tritonrl" corpus tests/corpus/faults --check "$TMP/faults.json" >"$OUT/faults_check.txt" 2>&1
rc_faults=$?

# 3b. Run-time guards alone (test-only --no-static): each '# expect-runtime:' hack for its reason.
"$BIN/tritonrl" eval --device cuda --tasks "$TASKS" --samples "$TMP/runtime.jsonl" --jobs "$JOBS" --json --no-static \
  --no-cache "${EXTRA[@]}" >"$TMP/runtime.json" 2>>"$LOG"
"$BIN/tritonrl" corpus tests/corpus/hacks --runtime --check "$TMP/runtime.json" >"$OUT/runtime_check.txt" 2>&1
rc_runtime=$?

# 4. Same command again: every verdict must come from the cache.
t2=$(date +%s.%N)
"$BIN/tritonrl" eval --device cuda --tasks "$TASKS" --samples "$TMP/corpus.jsonl" --jobs "$JOBS" --json \
  --db "$OUT/results.db" "${EXTRA[@]}" >"$TMP/again.json" 2>>"$LOG"
t3=$(date +%s.%N)

"$TRITONRL_PYTHON" - "$OUT/eval_corpus.json" "$TMP/again.json" "$t0" "$t1" "$t2" "$t3" "$rc_eval" "$rc_corpus" "$rc_faults" \
  "$rc_runtime" "$OUT/corpus_check.txt" "$OUT/faults_check.txt" "$OUT/runtime_check.txt" <<'PY' | tee "$OUT/summary.txt" | tee -a "$LOG"
import collections, json, sys
doc = json.load(open(sys.argv[1]))
again = json.load(open(sys.argv[2]))
t0, t1, t2, t3 = map(float, sys.argv[3:7])
rc_eval, rc_corpus, rc_faults, rc_runtime = sys.argv[7:11]
samples = doc["samples"]
by_kind = collections.defaultdict(collections.Counter)
for s in samples:
    by_kind[s["sample"].split("/")[0]][s["outcome"]] += 1
levels = collections.Counter(s.get("sandbox", {}).get("level", "n/a") for s in samples if s["sandbox"])
print(f"corpus: {len(samples)} samples in {t1 - t0:.1f} s (eval rc {rc_eval}); label check rc {rc_corpus}; faults rc {rc_faults}; runtime-only rc {rc_runtime}")
print(f"{'kind':<10} " + " ".join(f"{o:>13}" for o in ["invalid_syntax", "invalid_functionality", "compile_error", "runtime_error", "timeout", "incorrect", "correct"]))
for kind, c in sorted(by_kind.items()):
    print(f"{kind:<10} " + " ".join(f"{c[o]:>13}" for o in ["invalid_syntax", "invalid_functionality", "compile_error", "runtime_error", "timeout", "incorrect", "correct"]))
print("sandbox levels:", dict(levels))
cached = sum(1 for s in again["samples"] if s.get("from_cache"))
resumed = again.get("resumed_samples", 0)
print(f"second run: {t3 - t2:.1f} s, {len(again['samples'])} samples: {resumed} already done by the "
      f"same run (resumed, nothing re-evaluated), {cached} marked from_cache")
for path in sys.argv[11:14]:
    lines = open(path).read().splitlines()
    fails = [l for l in lines if l.startswith("FAIL")]
    print(f"{path.split('/')[-1]}: {lines[-1] if lines else 'empty'}")
    for l in fails[:40]:
        print("  " + l[:300])
o = doc["summary"]["overall"]
print(f"overall: valid {o['valid']:.3f} compiled {o['compiled']:.3f} correct {o['correct']:.3f}")
PY
rm -rf "$TMP"
