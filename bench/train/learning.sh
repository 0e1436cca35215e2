#!/usr/bin/env bash
# The learning experiment of docs/demo.md ("Does GRPO learn?"): on one GPU, resumable stage by
# stage (a stage whose output exists is skipped, a GRPO run continues from its last checkpoint),
# so it can be spread over several device calls on the same machine or carried to a fresh one.
#
#   BIN=build/tritonrl W=<work folder> bench/train/learning.sh [STAGE...]
#   stages (default all, in order): synth split sft calibrate pool before grpo after paired
#
# synth      `data synth --n $N_SYNTH --seed 1 --no-verify`: the draw whose every solution the H200
#            found correct and every reference audited ok (bench/RESULTS.md, 2026-12-03)
# split      RL candidates: every ${STRIDE}th task of the train split ($CANDIDATES of them), never
#            trained on by SFT; SFT: the rest of the train split; held-out loss and the held-out
#            evaluation: the first $HELDOUT tasks of the heldout_shape split
# sft        `train sft --keep-best`: $SFT_EPOCHS epochs, held-out loss every $EVAL_EVERY steps,
#            the best step kept (sft/best)
# calibrate  k=$K_CAL samples per candidate; labels by pass rate (tritonrl calibrate)
# pool       the candidates solved sometimes (0 < p < 1): the fixed RL pool (at least $POOL_MIN;
#            POOL_MAX=N keeps the first N of them in candidate order, the rest never enter)
# before     k=$K_EVAL samples per task of the SFT policy on the pool, the held-out shapes and the
#            built-in suite's level 1 (sampling seed 101)
# grpo       for each mode in $MODES and seed in $SEEDS: $STEPS steps of $TASKS_PER_STEP tasks x
#            $GROUP rollouts at lr $LR (warm-up $WARMUP), and the identical control at lr 0;
#            LRS="a b" runs one arm per learning rate (runs MODE_sSEED_lrA, ...) beside one control
#            (CONTROL_STEPS, default STEPS: its weights are checked identical to the SFT policy's)
# after      the same evaluations of every GRPO policy and control (sampling seed 202, so the
#            control's after - before is the evaluation's own noise)
#            EVAL_SETS (default "pool heldout level1") names the sets and their order
# SCORE_EXTRA: flags for every scoring pass (calibrate and train grpo), e.g. --prestart-workers 0
# paired     tritonrl paired: each run against the SFT policy and against its control, with 95%
#            bootstrap intervals over tasks; $W/summary.txt
# modes      E2: each pair of $MODES against each other on the pool, seeds as blocks
#            (bench/train/modes_paired.sh; folders of other leases: MODES_FROM="W2 W3"), Holm over
#            the pairs for each endpoint; appended to $W/summary.txt
# CONTROLS=first: one control per seed (the first mode's), not one per mode and seed: at lr 0 every
#            mode's control is the SFT policy (E2 runs three modes); CONTROLS=none: no control
# TRAIN_ORDER: the order the grpo stage trains the modes in (default MODES; E2 rotates it by block
#            so that a lease cut before its last mode does not always lose the same one)
# EVAL_EACH=1: each run's evaluations (EVAL_SETS, seed 202) right after its training, so a lease
#            cut part-way keeps every finished run evaluated
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${BIN:-$ROOT/build/tritonrl}"
: "${W:?set W to the work folder}"
N_SYNTH="${N_SYNTH:-2000}" STRIDE="${STRIDE:-16}" CANDIDATES="${CANDIDATES:-64}"
HELDOUT="${HELDOUT:-32}" MODEL="${MODEL:-builtin:small}" SFT_EPOCHS="${SFT_EPOCHS:-8}"
SFT_LR="${SFT_LR:-1e-3}" EVAL_EVERY="${EVAL_EVERY:-50}" K_CAL="${K_CAL:-8}" K_EVAL="${K_EVAL:-16}"
POOL_MIN="${POOL_MIN:-32}" STEPS="${STEPS:-30}" TASKS_PER_STEP="${TASKS_PER_STEP:-8}"
GROUP="${GROUP:-8}" LR="${LR:-2e-5}" WARMUP="${WARMUP:-5}" MODES="${MODES:-uniform}" LRS="${LRS:-}"
SEEDS="${SEEDS:-1}" DEVICE="${DEVICE:-cuda}" EVAL_DEVICE="${EVAL_DEVICE:-cuda}" JOBS="${JOBS:-16}"
MAX_NEW="${MAX_NEW:-1024}" VARIANTS="${VARIANTS:-medium}" TIMING="${TIMING:-0}"
SFT_EXTRA="${SFT_EXTRA:-}" GRPO_EXTRA="${GRPO_EXTRA:-}" SCORE_EXTRA="${SCORE_EXTRA:-}" CONTROL_STEPS="${CONTROL_STEPS:-${STEPS}}"
EVAL_SETS="${EVAL_SETS:-pool heldout level1}" CONTROLS="${CONTROLS:-all}" MODES_FROM="${MODES_FROM:-}"
POOL_MAX="${POOL_MAX:-0}" TRAIN_ORDER="${TRAIN_ORDER:-$MODES}" EVAL_EACH="${EVAL_EACH:-0}"
case "$CONTROLS" in all | first | none) ;; *) echo "learning.sh: CONTROLS must be all, first or none, not '$CONTROLS'" >&2; exit 2 ;; esac
# CONTROL_ONLY=1: the grpo stage runs the controls alone (the SFT policy's rollouts: entropy).
CONTROL_ONLY="${CONTROL_ONLY:-0}"
# POOL_ALL=1 (a CPU smoke run of this script, where the policy solves nothing): every candidate
# is the pool.
POOL_ALL="${POOL_ALL:-0}"
mkdir -p "$W"
LOG="$W/learning.log"
t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$LOG"; }
timing_flag=() && [[ "$TIMING" == 1 ]] && timing_flag=(--timing)
grpo_timing=() && [[ "$TIMING" != 1 ]] && grpo_timing=(--no-timing)

stage_synth() {
  [[ -f "$W/synth/manifest.jsonl" ]] && return
  "$BIN" data synth --n "$N_SYNTH" --seed 1 --no-verify --out "$W/synth"
}

stage_split() {
  [[ -f "$W/sft_train.jsonl" ]] && return
  "$BIN" data sft --tasks "$W/synth" --out "$W/records.jsonl"
  python3 - "$W" "$STRIDE" "$CANDIDATES" "$HELDOUT" <<'PY'
import json, os, shutil, sys
w, stride, n_cand, n_held = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
manifest = [json.loads(l) for l in open(f"{w}/synth/manifest.jsonl") if l.strip()]
train = [m["task"] for m in manifest if m.get("split", "train") == "train"]
cand = train[::stride][:n_cand]
held = [m["task"] for m in manifest if m.get("split") == "heldout_shape"][:n_held]
for name, ids in (("candidates", cand), ("heldout_shape", held)):
    os.makedirs(f"{w}/{name}", exist_ok=True)
    for t in ids:
        shutil.copy(f"{w}/synth/tasks/{t}.py", f"{w}/{name}/{t}.py")
    json.dump(ids, open(f"{w}/{name}.json", "w"))
recs = [json.loads(l) for l in open(f"{w}/records.jsonl") if l.strip()]
skip = set(cand)
with open(f"{w}/sft_train.jsonl.tmp", "w") as f:
    for r in recs:
        if r["task"] in train and r["task"] not in skip:
            f.write(json.dumps(r) + "\n")
with open(f"{w}/sft_eval.jsonl", "w") as f:
    for r in recs:
        if r["task"] in held:
            f.write(json.dumps(r) + "\n")
os.replace(f"{w}/sft_train.jsonl.tmp", f"{w}/sft_train.jsonl")
print(f"split: {len(train) - len(cand)} SFT tasks, {len(cand)} RL candidates, {len(held)} held-out shapes")
PY
}

stage_sft() {
  [[ -f "$W/sft/done" ]] && return
  local resume=()
  [[ -f "$W/sft/checkpoint/trainer_state.json" ]] && resume=(--resume "$W/sft/checkpoint")
  # shellcheck disable=SC2086
  "$BIN" train sft --model "$MODEL" --data "$W/sft_train.jsonl" --eval-data "$W/sft_eval.jsonl" \
    --out "$W/sft" --epochs "$SFT_EPOCHS" --lr "$SFT_LR" --eval-every "$EVAL_EVERY" --keep-best \
    --save-every "$EVAL_EVERY" --device "$DEVICE" --no-progress "${resume[@]}" $SFT_EXTRA 2>&1 | tee -a "$LOG"
  touch "$W/sft/done"
}

# calibrate_into OUT MODEL TASKS K SEED [FLAGS...]: per-task pass counts and Figure 5 classes.
calibrate_into() {
  [[ -f "$1" ]] && return
  "$BIN" calibrate --model "$2" --tasks "$3" --k "$4" --seed "$5" --out "$1" "${@:6}" --device "$DEVICE" \
    --eval-device "$EVAL_DEVICE" --jobs "$JOBS" --variants "$VARIANTS" --max-new-tokens "$MAX_NEW" \
    "${timing_flag[@]}" $SCORE_EXTRA 2>&1 | tee -a "$LOG"
}

stage_calibrate() { calibrate_into "$W/calibration.jsonl" "$W/sft/best" "$W/candidates" "$K_CAL" 7; }

stage_pool() {
  [[ -f "$W/pool/labels.jsonl" ]] && return
  python3 - "$W" "$POOL_MIN" "$POOL_ALL" "$POOL_MAX" <<'PY'
import json, os, shutil, sys
w, need, take_all, most = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4])
labels = [json.loads(l) for l in open(f"{w}/calibration.jsonl") if l.strip()]
order = {t: i for i, t in enumerate(json.load(open(f"{w}/candidates.json")))}
labels.sort(key=lambda l: order[l["task"]])
pool = [l for l in labels if take_all or 0 < l["passed"] < l["samples"]]
if take_all:
    for l in pool:
        l["level"] = 1
print(f"pool: {len(pool)} of {len(labels)} candidates solved sometimes "
      f"({sum(l['passed'] == 0 for l in labels)} never, {sum(l['passed'] == l['samples'] for l in labels)} always)")
if most > 0 and len(pool) > most:
    print(f"pool: the first {most} of them in candidate order kept (POOL_MAX)")
    pool = pool[:most]
if len(pool) < need:
    sys.exit(f"pool: {len(pool)} tasks, fewer than POOL_MIN={need}: more candidates or another SFT")
os.makedirs(f"{w}/pool", exist_ok=True)
for l in pool:
    shutil.copy(f"{w}/candidates/{l['task']}.py", f"{w}/pool/{l['task']}.py")
with open(f"{w}/pool/labels.jsonl", "w") as f:
    for l in pool:
        f.write(json.dumps(l) + "\n")
PY
}

# evaluate SET TAG MODEL SEED: one evaluation set (pool, heldout or level1) of one policy.
evaluate() {
  case "$1" in
    pool) calibrate_into "$W/eval/$2_pool.jsonl" "$3" "$W/pool" "$K_EVAL" "$4" ;;
    heldout) calibrate_into "$W/eval/$2_heldout.jsonl" "$3" "$W/heldout_shape" "$K_EVAL" "$4" ;;
    level1) calibrate_into "$W/eval/$2_level1.jsonl" "$3" "$ROOT/tasks" "$K_EVAL" "$4" --level 1 ;;
    *) echo "learning.sh: unknown evaluation set '$1' in EVAL_SETS (pool, heldout, level1)" >&2; exit 2 ;;
  esac
}

# Set-major order, the primary endpoint's set (pool) first: a call cut by its time limit has
# finished the pool for every policy before it spends time on the secondary sets.
stage_before() { mkdir -p "$W/eval"; for set in $EVAL_SETS; do evaluate "$set" sft "$W/sft/best" 101; done; }

# grpo_run NAME MODE SEED LR [STEPS]: resumes from the run's last checkpoint.
grpo_run() {
  local out="$W/grpo/$1"
  [[ -f "$out/done" ]] && return
  local resume=()
  [[ -f "$out/checkpoint/trainer_state.json" ]] && resume=(--resume "$out/checkpoint")
  # shellcheck disable=SC2086
  "$BIN" train grpo --model "$W/sft/best" --tasks "$W/pool" --out "$out" --mode "$2" --seed "$3" \
    --lr "$4" --warmup-steps "$WARMUP" --steps "${5:-$STEPS}" --tasks-per-step "$TASKS_PER_STEP" \
    --group "$GROUP" --max-new-tokens "$MAX_NEW" --save-every 2 --device "$DEVICE" \
    --eval-device "$EVAL_DEVICE" --jobs "$JOBS" --variants "$VARIANTS" "${grpo_timing[@]}" \
    --no-progress "${resume[@]}" $SCORE_EXTRA $GRPO_EXTRA 2>&1 | tee -a "$LOG"
  touch "$out/done"
}

# At lr 0 the weights never move (AdamW's decoupled decay is scaled by lr too), so the control's
# checkpoint is the SFT policy's, byte for byte, whatever its step count: a shorter control
# (CONTROL_STEPS < STEPS) evaluates to what the full-length one would. Checked, not assumed.
control_is_sft() {
  if cmp -s "$W/sft/best/model.safetensors" "$W/grpo/$1/checkpoint/model.safetensors"; then
    say "control $1: weights identical to sft/best"
  else
    say "control $1: weights differ from sft/best: lr 0 moved the policy"
    exit 4
  fi
}

# train_and_evaluate NAME MODE SEED LR [STEPS]: one run, then (EVAL_EACH=1) its evaluations.
train_and_evaluate() {
  grpo_run "$@"
  [[ "$EVAL_EACH" == 1 ]] || return 0
  mkdir -p "$W/eval"
  for set in $EVAL_SETS; do evaluate "$set" "$1" "$W/grpo/$1/checkpoint" 202; done
}

stage_grpo() {
  for mode in $TRAIN_ORDER; do
    for seed in $SEEDS; do
      say "grpo $mode seed $seed"
      # The control first: short, and its rollouts are the SFT policy's (entropy, valid share).
      if [[ "$CONTROLS" == all || ("$CONTROLS" == first && "$mode" == "${TRAIN_ORDER%% *}") ]]; then
        train_and_evaluate "${mode}_s${seed}_control" "$mode" "$seed" 0 "$CONTROL_STEPS"
        control_is_sft "${mode}_s${seed}_control"
      fi
      [[ "$CONTROL_ONLY" == 1 ]] && continue
      if [[ -z "$LRS" ]]; then
        train_and_evaluate "${mode}_s${seed}" "$mode" "$seed" "$LR"
      else
        for lr in $LRS; do train_and_evaluate "${mode}_s${seed}_lr${lr}" "$mode" "$seed" "$lr"; done
      fi
    done
  done
}

stage_after() {
  for set in $EVAL_SETS; do
    for run in "$W"/grpo/*/; do
      run="$(basename "$run")"
      evaluate "$set" "$run" "$W/grpo/$run/checkpoint" 202
    done
  done
}

# Without the `before` stage (its evaluation left out to save device time), the SFT policy's
# evaluation is the control's: the same weights (checked byte-identical), sampled at seed 202.
stage_paired() {
  : >"$W/summary.txt"
  for run in "$W"/grpo/*/; do
    run="$(basename "$run")"
    [[ "$run" == *_control ]] && continue
    for set in $EVAL_SETS; do
      local control="$W/eval/${run%_lr*}_control_$set.jsonl"  # one control per mode and seed
      if [[ ! -f "$control" ]]; then  # CONTROLS=first: the seed's one control
        local seed_part="${run%_lr*}" && seed_part="_s${seed_part##*_s}"
        control="$( (ls "$W"/eval/*"${seed_part}_control_$set.jsonl" 2>/dev/null || true) | head -n 1)"
      fi
      [[ -n "$control" && -f "$control" && -f "$W/eval/${run}_$set.jsonl" ]] || continue
      {
        if [[ -f "$W/eval/sft_$set.jsonl" ]]; then
          echo "== $run on $set: against the SFT policy and against the lr-0 control"
          "$BIN" paired --before "$W/eval/sft_$set.jsonl" --after "$W/eval/${run}_$set.jsonl" \
            --control-before "$W/eval/sft_$set.jsonl" --control-after "$control" \
            --json "$W/eval/paired_${run}_$set.json"
        else
          echo "== $run on $set: against the lr-0 control (the SFT weights, sampling seed 202)"
          "$BIN" paired --before "$control" --after "$W/eval/${run}_$set.jsonl" \
            --json "$W/eval/paired_${run}_$set.json"
        fi
      } | tee -a "$W/summary.txt"
    done
  done
  # Several runs (LRS arms, seeds, modes): their pool comparisons adjusted together (Holm).
  local family=()
  for f in "$W"/eval/paired_*_pool.json; do [[ -f "$f" ]] && family+=("$f"); done
  if ((${#family[@]} > 1)); then "$BIN" paired --holm "${family[@]}" | tee -a "$W/summary.txt"; fi
}

stage_modes() {
  # How much of each run's speed signal was there: of the correct rollouts, the share whose
  # speedup was unknown (not timed, or voided by load), over the run's steps.
  python3 - "$W" <<'PY' | tee -a "$W/summary.txt"
import glob, json, os, sys
for path in sorted(glob.glob(f"{sys.argv[1]}/grpo/*/metrics.jsonl")):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    rates = [r["speedup_unknown_rate"] for r in rows if "speedup_unknown_rate" in r]
    if rates:
        print(f"{os.path.basename(os.path.dirname(path))}: speedup_unknown_rate mean "
              f"{sum(rates) / len(rates):.3f} over {len(rates)} steps (min {min(rates):.3f}, max {max(rates):.3f})")
PY
  # shellcheck disable=SC2086
  BIN="$BIN" MODES="$MODES" SETS=pool bash "$ROOT/bench/train/modes_paired.sh" "$W" $MODES_FROM |
    tee -a "$W/summary.txt"
}

stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(synth split sft calibrate pool before grpo after paired)
for s in "${stages[@]}"; do
  say "stage $s"
  "stage_$s"
  say "stage $s done"
done
