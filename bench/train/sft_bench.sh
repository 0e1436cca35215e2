#!/usr/bin/env bash
# GPU benchmark of the SFT trainer (H200; see docs/train.md). Needs $BIN with
# tritonrl built with libtorch 2.11.0+cu130, $OUT for logs, python3 with torch
# (and transformers when available) and safetensors.
#   1 throughput: `tritonrl train sft` against a plain PyTorch loop of the same
#     shape (Qwen3-0.6B, bf16 autocast / bf16 compute with fp32 masters, B x T
#     tokens per step), median tokens/s after 3 warm-up steps, peak GPU memory
#     (nvidia-smi, sampled every 0.2 s, for both); our step's phase split; each
#     speed option alone and all together (SFT_VARIANTS, VARIANT_STEPS), the
#     split with all of them; then --checkpoint-layers. Every run --no-save.
#     The speed options are train sft's default: the runs "without options"
#     turn each off explicitly (--no-..., --loss-chunk 0), so they measure the
#     reference-order path.
#     Part 1 takes about 4 minutes (~60 s of assets, ~10-25 s per run).
#   2 builtin:small from scratch on the suite's SFT records, at most 10 minutes (SFT_SMALL=0: skip)
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$HERE/../.."
: "${BIN:?set BIN to the folder with tritonrl}"
: "${OUT:?set OUT to the folder for logs}"
PY="${PYTHON:-python3}"
B="${B:-8}"; T="${T:-2048}"; STEPS="${STEPS:-20}"
WORK="${WORK:-$(mktemp -d /tmp/tritonrl_sft.XXXXXX)}"
mkdir -p "$OUT" "$WORK"
TRITONRL_PYTHON="$PY" source "$ROOT/bench/gpu/libpath.sh"
SUMMARY="$OUT/sft_summary.txt"
: >"$SUMMARY"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >>"$SUMMARY" 2>&1 || true

peak_mem() {  # peak_mem LOGFILE -- command...: runs it, records max GPU memory used (MiB)
  local log="$1"; shift
  ( while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 0.2; done ) >"$log.mem" 2>/dev/null &
  local poller=$!
  "$@"
  local rc=$?
  kill "$poller" 2>/dev/null; wait "$poller" 2>/dev/null
  echo "peak GPU memory used: $(sort -n "$log.mem" | tail -1) MiB" | tee -a "$SUMMARY"
  return $rc
}

"$PY" "$HERE/sft_gpu.py" assets "$WORK" "$T" $((B * STEPS)) | tee -a "$SUMMARY"

# --no-save: a checkpoint of this model is ~7 GB (fp32 weights and moments); ten
# runs' worth would fill the GPU machine's disk and cost a write each.
sft() {  # sft RUN_DIR STEPS [FLAGS...]: train sft on the bench model and data
  local run="$1" steps="$2"; shift 2
  "$BIN/tritonrl" train sft --model "$WORK/model" --data "$WORK/bench.jsonl" --out "$run" \
    --device cuda --max-tokens "$T" --batch-tokens $((B * T)) --steps "$steps" --lr 1e-4 --warmup 2 \
    --no-progress --no-save "$@"
}

# Every speed option off (each is on by default): the path the options are measured against.
OFF=(--no-fused-adamw --no-fused-norm --no-fused-proj --no-rope-roll --loss-chunk 0)
# speed_flags FLAG...: the given speed flags, with every speed option not among them turned off.
speed_flags() {
  local given=" $* " out=() n
  for n in fused-adamw fused-norm fused-proj rope-roll; do
    [[ $given == *" --$n "* ]] || out+=("--no-$n")
  done
  [[ $given == *" --loss-chunk "* ]] || out+=(--loss-chunk 0)
  echo "${out[*]} $*"
}

# Order: what issue 19 is judged on first (baseline, ours, where our step's
# time goes), then the A/B of the speed options, then the memory-saving run, so
# that a step cut short by its time limit loses the least important part.
echo "== baseline (plain PyTorch, B=$B T=$T)" | tee -a "$SUMMARY"
peak_mem "$OUT/sft_baseline.log" "$PY" "$HERE/sft_gpu.py" baseline "$WORK" "$B" "$T" "$STEPS" 2>&1 | tee -a "$SUMMARY"
echo "== tritonrl train sft, speed options off (${OFF[*]}; B=$B T=$T)" | tee -a "$SUMMARY"
peak_mem "$OUT/sft_ours.log" sft "$WORK/ours" "$STEPS" "${OFF[@]}" 2>&1 | tee "$OUT/sft_ours.log" | tail -2 | tee -a "$SUMMARY"
"$PY" "$HERE/sft_gpu.py" ours "$WORK" "$WORK/ours" "tritonrl train sft, speed options off" | tee -a "$SUMMARY"
cp "$WORK/ours/metrics.jsonl" "$OUT/sft_ours_metrics.jsonl"
echo "== where a step's time goes, speed options off (--phase-timing, 8 steps, device synchronised per phase)" | tee -a "$SUMMARY"
sft "$WORK/phases" 8 --phase-timing "${OFF[@]}" >/dev/null 2>&1
"$PY" "$HERE/sft_gpu.py" phases "$WORK/phases" | tee -a "$SUMMARY"

# The speed options (docs/train.md), each alone and all together, VARIANT_STEPS
# steps each (median tokens/s after 3 warm-up steps, peak memory). SFT_VARIANTS
# overrides the list ("" skips them): NAME=FLAG[,FLAG...] items, the options
# turned on (every other speed option is turned off explicitly: speed_flags).
# "all" is train sft's default.
FAST="--fused-adamw,--fused-norm,--fused-proj,--rope-roll,--loss-chunk,4096"
VARIANTS="${SFT_VARIANTS-fused-adamw=--fused-adamw loss-chunk=--loss-chunk,4096 fused-norm=--fused-norm fused-proj=--fused-proj rope-roll=--rope-roll all=$FAST}"
for v in $VARIANTS; do
  name="${v%%=*}"
  IFS=, read -r -a flags <<<"${v#*=}"
  read -r -a flags <<<"$(speed_flags "${flags[@]}")"
  echo "== variant $name (${flags[*]}, ${VARIANT_STEPS:-12} steps)" | tee -a "$SUMMARY"
  peak_mem "$OUT/sft_$name.log" sft "$WORK/v_$name" "${VARIANT_STEPS:-12}" "${flags[@]}" >"$OUT/sft_$name.log" 2>&1
  "$PY" "$HERE/sft_gpu.py" ours "$WORK" "$WORK/v_$name" "$name" | tee -a "$SUMMARY"
done
if [[ -n "$VARIANTS" ]]; then
  echo "== step split with every speed option (--phase-timing, 8 steps)" | tee -a "$SUMMARY"
  IFS=, read -r -a flags <<<"$FAST"
  sft "$WORK/phases_fast" 8 --phase-timing "${flags[@]}" >/dev/null 2>&1
  "$PY" "$HERE/sft_gpu.py" phases "$WORK/phases_fast" | tee -a "$SUMMARY"
fi

echo "== same (speed options off), with --checkpoint-layers" | tee -a "$SUMMARY"
peak_mem "$OUT/sft_ours_ckpt.log" sft "$WORK/ckpt" "$STEPS" --checkpoint-layers "${OFF[@]}" >"$OUT/sft_ours_ckpt.log" 2>&1
"$PY" "$HERE/sft_gpu.py" ours "$WORK" "$WORK/ckpt" "checkpoint-layers" | tee -a "$SUMMARY"

# SFT_SMALL=0 skips part 2 (the demo's --gpu setting trains builtin:small and scores it too).
if [[ "${SFT_SMALL:-1}" == 1 ]]; then
  echo "== builtin:small from scratch on the suite's SFT records (<= 10 min)" | tee -a "$SUMMARY"
  "$PY" "$ROOT/tests/python/sft_suite_data.py" --tasks "$ROOT/tasks" --train "$WORK/suite_train.jsonl" \
    --eval "$WORK/suite_eval.jsonl" | tee -a "$SUMMARY"
  timeout 600 "$BIN/tritonrl" train sft --model builtin:small --data "$WORK/suite_train.jsonl" \
    --eval-data "$WORK/suite_eval.jsonl" --out "$WORK/small" --device cuda --epochs "${SMALL_EPOCHS:-60}" \
    --max-tokens 4096 --batch-tokens 32768 --lr 1e-3 --warmup 20 --eval-every 20 --no-progress \
    2>&1 | tail -3 | tee -a "$SUMMARY"
  cp "$WORK/small/metrics.jsonl" "$OUT/sft_small_metrics.jsonl" 2>/dev/null
  "$BIN/tritonrl" report --train-log "$WORK/small/metrics.jsonl" --out "$OUT/sft_small_report.html" | tee -a "$SUMMARY"
  "$BIN/tritonrl" generate --model "$WORK/small/checkpoint" --prompts "$WORK/suite_eval.jsonl" --chat \
    --temperature 0 --max-new-tokens 1024 --out "$OUT/sft_small_samples.jsonl" --device cuda 2>&1 | tail -1 | tee -a "$SUMMARY"
fi
echo
cat "$SUMMARY"
