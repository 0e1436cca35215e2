#!/usr/bin/env bash
# Start-up three ways on the same samples, in the same run of this script: cold workers (a fresh
# interpreter each, --cold-workers --prestart-workers 0), warm ones (forked from the zygote,
# --prestart-workers 0) and warm pre-started ones (forked, sandboxed and with their CUDA context
# made before their sample arrives: the default, docs/eval.md "Pre-started workers"). Prints, per
# mode, the median and quartiles of each sample's start-up (timings_ms.startup: the request sent
# to the worker's "variants" frame; for a worker spawned with its sample that includes the
# interpreter, the imports and the CUDA context, for a pre-started one only what came after its
# request), its total (timings_ms.total: the sample's own wall time, folder, spawn and all
# stages), its worker wall time, the worker's own device_init, the run's wall time and the spawn
# kinds seen; then checks that all modes gave every sample the same outcome, flags and sandbox
# level (how a worker starts must change speed only).
#
#   BIN=build OUT=/tmp/out bench/gpu/warm_workers.sh            # GPU (default DEVICE=cuda)
#   DEVICE=cpu BIN=build OUT=/tmp/out bench/gpu/warm_workers.sh # CPU: correctness, CPU figures
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
for mode in cold warm prestarted; do
  case "$mode" in
    cold) flags=(--cold-workers --prestart-workers=0) ;;
    warm) flags=(--prestart-workers=0) ;;
    prestarted) flags=(--prestart-workers=-1) ;;
  esac
  start=$(date +%s.%N)
  "$BIN/tritonrl" eval --device "$DEVICE" --tasks "$TASKS" --samples "$TMP/s.jsonl" --jobs "$JOBS" \
    --json --no-cache --work-dir "$TMP/work-$mode" "${flags[@]}" >"$OUT/warm_workers_$mode.json" 2>"$OUT/warm_workers_$mode.log"
  end=$(date +%s.%N)
  echo "$mode $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')" >>"$TMP/wall.txt"
done

"$PY" - "$OUT" "$TMP/wall.txt" <<'PY' | tee "$OUT/warm_workers.txt"
import json, statistics, sys
out, wall_file = sys.argv[1], sys.argv[2]
walls = dict(line.split() for line in open(wall_file))
modes = ("cold", "warm", "prestarted")
runs = {m: {s["sample"]: s for s in json.load(open(f"{out}/warm_workers_{m}.json"))["samples"]}
        for m in modes}
def q(xs):
    xs = sorted(xs)
    if not xs:
        return "-"
    qs = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return f"median {statistics.median(xs):8.1f}  q1 {qs[0]:8.1f}  q3 {qs[2]:8.1f}  (n={len(xs)})"
def timing(samples, key):
    return [s["timings_ms"][key] for s in samples.values() if key in s["timings_ms"]]
print(f"{'mode':10} {'what':18} ms")
for m, samples in runs.items():
    spawn = {}
    for s in samples.values():
        spawn[s["sandbox"].get("spawn", "?")] = spawn.get(s["sandbox"].get("spawn", "?"), 0) + 1
    for key in ("startup", "total", "worker_wall", "phase_device_init"):
        print(f"{m:10} {key:18} {q(timing(samples, key))}")
    print(f"{m:10} {'run wall s':18} {float(walls[m]):.1f}   spawn: {spawn}")
bad = []
expect_spawn = {"cold": ("cold",), "warm": ("warm",), "prestarted": ("warm+prestarted", "warm")}
for name, c in runs["cold"].items():
    for m in modes[1:]:
        w = runs[m].get(name)
        if w is None:
            bad.append(f"{name}: missing in the {m} run")
            continue
        if c["outcome"] != w["outcome"]:
            bad.append(f"{name}: outcome cold {c['outcome']} {m} {w['outcome']}")
        if sorted(c["flags"]) != sorted(w["flags"]) and not {"parent_clock_gap", "near_tolerance"} & set(c["flags"] + w["flags"]):
            bad.append(f"{name}: flags cold {c['flags']} {m} {w['flags']}")
        if c["sandbox"].get("level") != w["sandbox"].get("level"):
            bad.append(f"{name}: sandbox cold {c['sandbox'].get('level')} {m} {w['sandbox'].get('level')}")
for m in modes:
    for name, s in runs[m].items():
        if s["sandbox"].get("spawn") not in expect_spawn[m]:
            bad.append(f"{name}: {m} run started it as {s['sandbox'].get('spawn')}")
# The pool's first worker may be asked for before the pool has one (it then starts as before).
if not any(s["sandbox"].get("spawn") == "warm+prestarted" for s in runs["prestarted"].values()):
    bad.append("no sample of the prestarted run got a pre-started worker")
print("same verdicts in all modes" if not bad else "DIFFERENCES:\n  " + "\n  ".join(bad))
sys.exit(1 if bad else 0)
PY
