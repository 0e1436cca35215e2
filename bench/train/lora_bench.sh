#!/usr/bin/env bash
# Issue 38's GPU proof (H200; docs/train.md "LoRA benchmark"): random models of Qwen3's shapes made
# on the machine (bf16 on disk), three parts, each runnable alone (PART):
#   sft   LoRA SFT at T = 4096 on the SHAPE (8b) model: `tritonrl train sft --lora-r` against PEFT +
#         transformers (same r, alpha, targets, bf16 base, fp32 adapters, B x T, steps), median
#         tokens/s after 3 warm-up steps and peak GPU memory (nvidia-smi, both sampled alike); then
#         both with activation checkpointing (SFT_CKPT=0 skips that pair).
#   grpo  one `train grpo --lora-r` step of GRPO_TASKS x GRPO_G rollouts at GRPO_NEW new tokens on
#         the SHAPE model: peak memory and the generation / scoring / update split (metrics.jsonl).
#         Random weights rarely emit EOS: every rollout runs to the limit (the table counts them).
#   fit   full fine-tuning and LoRA, each with and without --checkpoint-layers, FIT_STEPS SFT steps
#         at FIT_B x FIT_T for each of FIT_SHAPES: peak memory, or OOM (detected, recorded).
# Resumable: every run appends a record to $WORK/results.jsonl; a record that finished (ok, oom or
# error; not a timeout) is skipped by a later call on the same machine (WORK persists while it is
# warm; on a fresh one, RESULTS_FROM=an earlier call's lora_results.jsonl), and no run starts within
# MIN_RUN_S of DEADLINE (seconds of this call): the runs left are named. Written to $OUT (three
# files, as they come): lora_summary.md (the tables), lora_bench.log (every command's output),
# lora_results.jsonl (the records, all calls').
# Sizes are variables: DEVICE=cpu with the toy shapes runs the whole script on a CPU (docs/train.md).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
: "${BIN:?set BIN to the folder with tritonrl}"
: "${OUT:?set OUT to the folder for logs}"
PY="${PYTHON:-python3}"
PART="${PART:-sft grpo fit}"
DEVICE="${DEVICE:-cuda}"; DTYPE="${DTYPE:-bf16}"
MODEL_DTYPE="${MODEL_DTYPE:-bfloat16}"         # on disk
SHAPE="${SHAPE:-8b}"                           # parts sft and grpo (sft_gpu.py SHAPES)
B="${B:-1}"; T="${T:-4096}"; STEPS="${STEPS:-10}"; SFT_CKPT="${SFT_CKPT:-1}"
LORA_R="${LORA_R:-16}"; LORA_ALPHA="${LORA_ALPHA:-32}"; LORA_TARGETS="${LORA_TARGETS:-all}"
GRPO_TASKS="${GRPO_TASKS:-8}"; GRPO_G="${GRPO_G:-8}"; GRPO_NEW="${GRPO_NEW:-8192}"
GRPO_FLAGS="${GRPO_FLAGS---checkpoint-layers}"; JOBS="${JOBS:-8}"; EVAL_DEVICE="${EVAL_DEVICE:-$DEVICE}"
TASKS="${TASKS:-$ROOT/tasks}"
FIT_SHAPES="${FIT_SHAPES:-0.6b 1.7b 4b 8b}"; FIT_MODES="${FIT_MODES:-lora+ckpt lora full+ckpt full}"
FIT_B="${FIT_B:-1}"; FIT_T="${FIT_T:-4096}"; FIT_STEPS="${FIT_STEPS:-3}"
WORK="${WORK:-/tmp/tritonrl_lora_bench}"
DEADLINE="${DEADLINE:-560}"; RUN_TIMEOUT="${RUN_TIMEOUT:-540}"; MIN_RUN_S="${MIN_RUN_S:-45}"
FIT_MEM_LIMIT_MB="${FIT_MEM_LIMIT_MB:-0}"      # address-space limit of each fit run (a CPU drill of OOM)
mkdir -p "$OUT" "$WORK/models" "$WORK/runs"
RESULTS="$WORK/results.jsonl"; LOG="$OUT/lora_bench.log"; SUMMARY="$OUT/lora_summary.md"
# RESULTS_FROM: an earlier call's lora_results.jsonl (carried), to resume on a fresh machine.
[[ -n "${RESULTS_FROM:-}" && ! -f "$RESULTS" ]] && cp "$RESULTS_FROM" "$RESULTS"
TRITONRL_PYTHON="$PY" source "$ROOT/bench/gpu/libpath.sh"

# PEFT is in the GPU image; were it missing, a carried wheel (.whl/peft-*.whl) is installed.
if ! "$PY" -c 'import peft' 2>/dev/null && compgen -G "$ROOT/.whl/peft-*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/lora_site \
    "$ROOT"/.whl/peft-*.whl && export PYTHONPATH="/tmp/lora_site${PYTHONPATH:+:$PYTHONPATH}"
fi

{
  echo "## lora_bench.sh $(date -u +%FT%TZ), PART='$PART', commit $(cat "$ROOT/COMMIT" 2>/dev/null ||
    git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi (DEVICE=$DEVICE)"
  "$PY" -c 'import torch, transformers, peft; print("torch", torch.__version__, "transformers", transformers.__version__, "peft", peft.__version__)' 2>&1 | tail -1
  echo
} | tee -a "$SUMMARY"

LEFT=()
left_s() { echo $((DEADLINE - SECONDS)); }

# measured KEY INFO_JSON PARSE CMD...: one run through sft_gpu.py measure, unless done or out of time.
measured() {
  local key="$1" info="$2" parse="$3"; shift 3
  if "$PY" "$HERE/sft_gpu.py" done "$RESULTS" "$key"; then echo "done before: $key" | tee -a "$SUMMARY"; return; fi
  local left; left=$(left_s)
  if ((left < MIN_RUN_S)); then LEFT+=("$key"); return; fi
  "$PY" "$HERE/sft_gpu.py" measure --key "$key" --results "$RESULTS" --log "$LOG" \
    --timeout $((left < RUN_TIMEOUT ? left : RUN_TIMEOUT)) --mem-limit-mb "${MEM_LIMIT:-0}" \
    --parse "$parse" --info "$info" -- "$@" | tee -a "$SUMMARY"
  cp "$RESULTS" "$OUT/lora_results.jsonl"
}

# model SHAPE: the random model's folder, written once (drawn on DEVICE, MODEL_DTYPE on disk).
model() {
  local dir="$WORK/models/$1"
  if [[ ! -f "$dir/config.json" ]]; then
    local t0=$SECONDS
    rm -rf "$dir"
    "$PY" "$HERE/sft_gpu.py" model "$dir.tmp" "$1" "$MODEL_DTYPE" "$DEVICE" >>"$LOG" 2>&1 && mv "$dir.tmp" "$dir" ||
      echo "writing the $1 model failed (see lora_bench.log)" | tee -a "$SUMMARY" >&2
    echo "model $1 written in $((SECONDS - t0)) s ($(du -sh "$dir" 2>/dev/null | cut -f1))" | tee -a "$SUMMARY" >&2
  fi
  echo "$dir"
}

# data T: records that each fill T tokens, enough for every run here.
data() {
  local f="$WORK/data_T$1.jsonl"
  [[ -f "$f" ]] || "$PY" "$HERE/sft_gpu.py" data "$f" "$1" 256 >>"$LOG" 2>&1
  echo "$f"
}

LORA=(--lora-r "$LORA_R" --lora-alpha "$LORA_ALPHA" --lora-targets "$LORA_TARGETS")

# sft_run NAME MODEL DATA B T STEPS FLAGS...: the command line of one `train sft` run (--no-save).
sft_cmd() {
  local name="$1" m="$2" d="$3" b="$4" t="$5" s="$6"; shift 6
  rm -rf "$WORK/runs/$name"
  echo "$BIN/tritonrl" train sft --model "$m" --data "$d" --out "$WORK/runs/$name" --device "$DEVICE" \
    --dtype "$DTYPE" --max-tokens "$t" --batch-tokens $((b * t)) --steps "$s" --lr 1e-4 --warmup 2 \
    --no-progress --no-save "$@"
}

info() {  # info PART MODE LABEL SHAPE B T STEPS: a record's tags
  printf '{"part": "%s", "mode": "%s", "label": "%s", "shape": "%s", "B": %s, "T": %s, "steps_asked": %s}' "$@"
}

for part in $PART; do
  case "$part" in
  sft)
    echo "### part sft: $SHAPE, B x T = $B x $T, $STEPS steps, r $LORA_R alpha $LORA_ALPHA targets $LORA_TARGETS" | tee -a "$SUMMARY"
    M="$(model "$SHAPE")"; D="$(data "$T")"
    tag="$SHAPE:${B}x$T:s$STEPS:r$LORA_R:a$LORA_ALPHA:$LORA_TARGETS"
    for ck in "" "+ckpt"; do
      [[ -n "$ck" && "$SFT_CKPT" != 1 ]] && continue
      flag=(); pflag=(); [[ -n "$ck" ]] && flag=(--checkpoint-layers) && pflag=(--checkpoint)
      read -r -a cmd <<<"$(sft_cmd "sft_ours$ck" "$M" "$D" "$B" "$T" "$STEPS" "${LORA[@]}" "${flag[@]}")"
      measured "sft:ours$ck:$tag" "$(info sft "ours$ck" "tritonrl train sft --lora-r $LORA_R${ck:+ --checkpoint-layers}" "$SHAPE" "$B" "$T" "$STEPS")" \
        "sft:$WORK/runs/sft_ours$ck" "${cmd[@]}"
      measured "sft:peft$ck:$tag" "$(info sft "peft$ck" "PEFT + transformers${ck:+, gradient checkpointing}" "$SHAPE" "$B" "$T" "$STEPS")" json \
        "$PY" "$HERE/sft_gpu.py" peft --model "$M" --batch "$B" --seq "$T" --steps "$STEPS" --r "$LORA_R" \
        --alpha "$LORA_ALPHA" --targets "$LORA_TARGETS" --device "$DEVICE" --dtype "$DTYPE" "${pflag[@]}"
    done
    ;;
  grpo)
    echo "### part grpo: $SHAPE, $GRPO_TASKS tasks x $GRPO_G rollouts, $GRPO_NEW new tokens, flags '$GRPO_FLAGS'" | tee -a "$SUMMARY"
    M="$(model "$SHAPE")"
    read -r -a gflags <<<"$GRPO_FLAGS"
    rm -rf "$WORK/runs/grpo"
    # --no-filter: the constant (all-zero) reward groups of a random model stay in the loss, so the
    # update runs its backward pass on every rollout (with the DAPO filter it would only run forward).
    measured "grpo:$SHAPE:${GRPO_TASKS}x$GRPO_G:new$GRPO_NEW:r$LORA_R:$(echo "$GRPO_FLAGS" | tr ' ' '_')" \
      "$(printf '{"part": "grpo", "shape": "%s", "tasks": %s, "group": %s, "new": %s, "flags": "--lora-r %s %s"}' \
        "$SHAPE" "$GRPO_TASKS" "$GRPO_G" "$GRPO_NEW" "$LORA_R" "$GRPO_FLAGS")" "grpo:$WORK/runs/grpo" \
      "$BIN/tritonrl" train grpo --model "$M" --tasks "$TASKS" --out "$WORK/runs/grpo" --device "$DEVICE" \
      --dtype "$DTYPE" --eval-device "$EVAL_DEVICE" --jobs "$JOBS" --prestart-workers 0 --group "$GRPO_G" \
      --tasks-per-step "$GRPO_TASKS" --max-new-tokens "$GRPO_NEW" --steps 1 --levels 1:1 --lr 1e-6 \
      --no-filter --no-progress "${LORA[@]}" "${gflags[@]}"
    ;;
  fit)
    echo "### part fit: $FIT_SHAPES; $FIT_MODES; B x T = $FIT_B x $FIT_T, $FIT_STEPS steps" | tee -a "$SUMMARY"
    D="$(data "$FIT_T")"
    for shape in $FIT_SHAPES; do
      (($(left_s) < MIN_RUN_S)) && { for mode in $FIT_MODES; do LEFT+=("fit:$shape:$mode"); done; continue; }
      M="$(model "$shape")"
      for mode in $FIT_MODES; do
        flags=()
        [[ "$mode" == lora* ]] && flags+=("${LORA[@]}")
        [[ "$mode" == *+ckpt ]] && flags+=(--checkpoint-layers)
        read -r -a cmd <<<"$(sft_cmd "fit_${shape}_$mode" "$M" "$D" "$FIT_B" "$FIT_T" "$FIT_STEPS" "${flags[@]}")"
        MEM_LIMIT="$FIT_MEM_LIMIT_MB" measured "fit:$shape:$mode:${FIT_B}x$FIT_T:s$FIT_STEPS" \
          "$(info fit "$mode" "train sft ${flags[*]}" "$shape" "$FIT_B" "$FIT_T" "$FIT_STEPS")" "sft:$WORK/runs/fit_${shape}_$mode" "${cmd[@]}"
      done
    done
    ;;
  *) echo "unknown part '$part' (sft, grpo, fit)" >&2; exit 2 ;;
  esac
done

echo | tee -a "$SUMMARY"
"$PY" "$HERE/sft_gpu.py" tables "$RESULTS" | tee -a "$SUMMARY"
if ((${#LEFT[@]})); then
  echo "left for the next call (same machine, WORK=$WORK; or a fresh one): ${LEFT[*]}" | tee -a "$SUMMARY"
fi
echo "call took $SECONDS s; summary: $SUMMARY"
