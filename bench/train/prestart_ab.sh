#!/usr/bin/env bash
# Scoring inside GRPO with and without pre-started workers (issue 35). Runs of `train grpo` from
# one SFT checkpoint on one RL pool, same seed and settings, each with its own scoring store (no
# verdict shared between them); only the workers' start differs. Arms: 0 (no pre-started worker),
# -1 (one per job, each Score call's own pool, drained at its end), keep (-1 with
# --keep-idle-workers: the idle workers wait between steps and make their CUDA contexts while the
# policy generates and updates). Prints a table per arm: scoring seconds a step (steps 2..N: step
# 1 computes the pool's references), rollouts scored a second, and from the store the workers'
# mean wall, start and device set-up, split by how each worker was spawned (pre-started or on
# demand); then, with LR=0 (every arm samples the same rollouts from the same weights), how many
# rollouts got the same outcome in each arm as in the first, and how far the same rollout's
# speedup moved. An arm ARM:N also times each correct rollout with N calls (--timing-trials N,
# default 100): "keep:30" is the keep arm at 30 timed calls, against "keep" at 100.
#
#   BIN=<folder with tritonrl> DEMO=<a folder with sft/best and pool/: a finished `tritonrl demo
#   --gpu`, or learning.sh's work folder> OUT=<folder> [STEPS=8] [ARMS="0 -1"] [LR=2e-5]
#   [TIMING=0] bench/train/prestart_ab.sh
#
# Why (bench/RESULTS.md, 2026-12-06 ninth session): the first `demo --gpu` scored its GRPO steps
# in 8-15 s with pre-started workers, where E1b had 3.8-4.6 s without; a sample that found no
# pre-started worker spent 6.6 s starting one beside the pool's own replacements. The confound
# (E1b's later policy repeated code more often) is removed here: same checkpoint, same tasks.
# The keep arm (eighteenth session): E2's steps score about 31 distinct codes each at the rate the
# driver makes fresh contexts (~6.8 a second), so contexts made between steps should shorten them.
set -euo pipefail
: "${BIN:?set BIN to the folder with tritonrl}"
: "${DEMO:?set DEMO to a finished demo --gpu folder}"
: "${OUT:?set OUT to the folder for the results}"
STEPS="${STEPS:-8}" ARMS="${ARMS:-0 -1}" LR="${LR:-2e-5}" TIMING="${TIMING:-0}"
# A CPU smoke of the plumbing: DEVICE=cpu JOBS=2 VARIANTS=small GROUP=2 TASKS=2 NEW=16 (its
# figures say nothing about the GPU).
DEVICE="${DEVICE:-cuda}" JOBS="${JOBS:-16}" VARIANTS="${VARIANTS:-medium}" GROUP="${GROUP:-8}"
TASKS="${TASKS:-8}" NEW="${NEW:-1024}"
PY="${TRITONRL_PYTHON:-python3}"
mkdir -p "$OUT"
for arm in $ARMS; do
  out="$OUT/prestart_$arm"  # an arm's name is a folder name: 0, -1, keep, keep:30
  [[ -f "$out/done" ]] && continue
  rm -rf "$out"
  start=$(date +%s)
  start_kind="${arm%%:*}"
  flags=(--prestart-workers "$start_kind")
  [[ "$start_kind" == keep ]] && flags=(--prestart-workers -1 --keep-idle-workers)
  [[ "$arm" == *:* ]] && flags+=(--timing-trials "${arm#*:}")
  timing=(--no-timing)
  [[ "$TIMING" == 1 ]] && timing=()
  "$BIN/tritonrl" train grpo --model "$DEMO/sft/best" --tasks "$DEMO/pool" --out "$out" \
    --mode uniform "${timing[@]}" --seed 1 --lr "$LR" --warmup-steps 5 --steps "$STEPS" \
    --tasks-per-step "$TASKS" --group "$GROUP" --max-new-tokens "$NEW" --save-every 1000 \
    --device "$DEVICE" --eval-device "$DEVICE" --jobs "$JOBS" --variants "$VARIANTS" "${flags[@]}" \
    --no-progress \
    >"$OUT/prestart_$arm.log" 2>&1
  echo "arm $arm: $(($(date +%s) - start)) s" >>"$OUT/prestart_ab.txt"
  touch "$out/done"
done
GROUP="$GROUP" "$PY" - "$OUT" $ARMS <<'PY' | tee -a "$OUT/prestart_ab.txt"
import json, math, os, sqlite3, statistics, sys

out, arms = sys.argv[1], sys.argv[2:]
print("| --prestart-workers | steps | scoring s/step (2..N) | rollouts/s scored | spawn | workers | wall s | start s | device set-up s | correctness s |")
print("|---|---|---|---|---|---|---|---|---|---|")
for arm in arms:
    run = os.path.join(out, f"prestart_{arm}")
    steps = [json.loads(l) for l in open(os.path.join(run, "metrics.jsonl")) if l.strip()]
    later = steps[1:] or steps
    score = statistics.mean(s["score_seconds"] for s in later)
    n = sum(s["sampled_groups"] for s in later) * int(os.environ.get("GROUP", "8")) / len(later)
    db = sqlite3.connect(os.path.join(run, "scores.sqlite"))
    rows = db.execute(
        "select json_extract(v.evidence_json, '$.sandbox.spawn'), count(distinct v.sample_id || v.run_id),"
        " avg(case when s.stage = 'worker_wall' then s.seconds end),"
        " avg(case when s.stage = 'startup' then s.seconds end),"
        " avg(case when s.stage = 'phase_device_init' then s.seconds end),"
        " avg(case when s.stage = 'correctness' then s.seconds end)"
        " from verdicts v join stage_timings s using (run_id, task_id, sample_id) group by 1").fetchall()
    fmt = lambda x: "-" if x is None else f"{x:.2f}"
    for i, (spawn, count, wall, st, dev, corr) in enumerate(rows):
        head = f"| {arm} | {len(steps)} | {score:.2f} | {n / score:.1f} |" if i == 0 else "| | | | |"
        print(f"{head} {spawn} | {count} | {fmt(wall)} | {fmt(st)} | {fmt(dev)} | {fmt(corr)} |")


def outcomes(arm):
    rows = [json.loads(l) for l in open(os.path.join(out, f"prestart_{arm}", "rollouts.jsonl")) if l.strip()]
    return {(r["step"], r["group"], r["sample"]): (r["response"], r["outcome"], r.get("speedup")) for r in rows}


first = outcomes(arms[0])
for arm in arms[1:]:
    other = outcomes(arm)
    same_text = [k for k in first if k in other and first[k][0] == other[k][0]]
    same = sum(first[k][1] == other[k][1] for k in same_text)
    logs = [abs(math.log(other[k][2] / first[k][2])) for k in same_text
            if first[k][2] and other[k][2] and first[k][2] > 0 and other[k][2] > 0]
    moved = (f"; the same rollout's speedup: median |log ratio| {statistics.median(logs):.4f}, "
             f"90th percentile {sorted(logs)[int(0.9 * (len(logs) - 1))]:.4f} over {len(logs)}") if logs else ""
    print(f"arm {arm} against arm {arms[0]}: {len(same_text)} of {len(first)} rollouts with the same "
          f"response, {same} of them with the same outcome{moved}")
PY
