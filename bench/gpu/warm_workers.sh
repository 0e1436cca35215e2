#!/usr/bin/env bash
# Warm workers (forked from the zygote) against cold ones (a fresh interpreter each): the same
# samples evaluated twice, once with --cold-workers, in the same run of this script. Prints, per
# mode, the median and quartiles of each sample's start-up (timings_ms.startup: spawn to the
# worker's "variants" frame, i.e. interpreter, torch/triton import and task load), of its worker
# wall time, the run's wall time, and checks that both modes gave every sample the same outcome,
# flags and sandbox level (the zygote must change speed only).
#
#   BIN=build OUT=/tmp/out bench/gpu/warm_workers.sh            # GPU (default DEVICE=cuda)
#   DEVICE=cpu BIN=build OUT=/tmp/out bench/gpu/warm_workers.sh # CPU: correctness only
#
# Samples: every task solution of the suite (default tasks/, small variant on the CPU), at
# JOBS jobs (default 1: latency; the throughput question is bench/gpu/measure.sh's).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
BIN="${BIN:?set BIN to the folder holding tritonrl}"
OUT="${OUT:?set OUT to the output folder}"
DEVICE="${DEVICE:-cuda}"
JOBS="${JOBS:-1}"
TASKS="${EVAL_TASKS:-tasks}"
LIMIT="${LIMIT:-20}"  # samples (the first LIMIT solutions)
mkdir -p "$OUT"
if [ "$DEVICE" = cuda ]; then source "$ROOT/bench/gpu/libpath.sh"; fi
export TRITONRL_RUNNER_DIR="$ROOT/python"
PY="${TRITONRL_PYTHON:-$ROOT/.venv/bin/python}"
[ -x "$PY" ] || PY="$(command -v python3)"
export TRITONRL_PYTHON="$PY"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

"$BIN/tritonrl" corpus --solutions "$TASKS/solutions" --device "$DEVICE" --out "$TMP/all.jsonl" 2>/dev/null
head -n "$LIMIT" "$TMP/all.jsonl" >"$TMP/s.jsonl"
for mode in cold warm; do
  flag=""
  [ "$mode" = cold ] && flag="--cold-workers"
  start=$(date +%s.%N)
  "$BIN/tritonrl" eval --device "$DEVICE" --tasks "$TASKS" --samples "$TMP/s.jsonl" --jobs "$JOBS" \
    --json --no-cache --work-dir "$TMP/work-$mode" $flag >"$OUT/warm_workers_$mode.json" 2>"$OUT/warm_workers_$mode.log"
  end=$(date +%s.%N)
  echo "$mode $(echo "$end - $start" | bc)" >>"$TMP/wall.txt"
done

"$PY" - "$OUT" "$TMP/wall.txt" <<'PY' | tee "$OUT/warm_workers.txt"
import json, statistics, sys
out, wall_file = sys.argv[1], sys.argv[2]
walls = dict(line.split() for line in open(wall_file))
runs = {m: {s["sample"]: s for s in json.load(open(f"{out}/warm_workers_{m}.json"))["samples"]}
        for m in ("cold", "warm")}
def q(xs):
    xs = sorted(xs)
    if not xs:
        return "-"
    qs = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return f"median {statistics.median(xs):8.1f}  q1 {qs[0]:8.1f}  q3 {qs[2]:8.1f}  (n={len(xs)})"
print(f"{'mode':5} {'what':12} ms")
for m, samples in runs.items():
    spawn = sorted({s['sandbox'].get('spawn', '?') for s in samples.values()})
    print(f"{m:5} {'startup':12} {q([s['timings_ms']['startup'] for s in samples.values() if 'startup' in s['timings_ms']])}")
    print(f"{m:5} {'worker_wall':12} {q([s['timings_ms']['worker_wall'] for s in samples.values() if 'worker_wall' in s['timings_ms']])}")
    print(f"{m:5} {'run wall s':12} {float(walls[m]):.1f}   spawn: {', '.join(spawn)}")
bad = []
for name, c in runs["cold"].items():
    w = runs["warm"].get(name)
    if w is None:
        bad.append(f"{name}: missing in the warm run")
        continue
    for key in ("outcome",):
        if c[key] != w[key]:
            bad.append(f"{name}: {key} cold {c[key]} warm {w[key]}")
    if sorted(c["flags"]) != sorted(w["flags"]) and not {"parent_clock_gap", "near_tolerance"} & set(c["flags"] + w["flags"]):
        bad.append(f"{name}: flags cold {c['flags']} warm {w['flags']}")
    if c["sandbox"].get("level") != w["sandbox"].get("level"):
        bad.append(f"{name}: sandbox cold {c['sandbox'].get('level')} warm {w['sandbox'].get('level')}")
    if w["sandbox"].get("spawn") != "warm":
        bad.append(f"{name}: not forked from the zygote: {w['sandbox'].get('spawn')}")
print("same verdicts in both modes" if not bad else "DIFFERENCES:\n  " + "\n  ".join(bad))
sys.exit(1 if bad else 0)
PY
