#!/usr/bin/env bash
# GPU benchmark of the SFT trainer (H200; see docs/train.md). Needs $BIN with
# tritonrl built with libtorch 2.11.0+cu130, $OUT for logs, python3 with torch
# (and transformers when available) and safetensors.
#   1 throughput: `tritonrl train sft` against a plain PyTorch loop of the same
#     shape (Qwen3-0.6B, bf16 autocast / bf16 compute with fp32 masters, B x T
#     tokens per step), median tokens/s after 3 warm-up steps, peak GPU memory
#     (nvidia-smi, sampled every 0.2 s, for both)
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
echo "== baseline (plain PyTorch, B=$B T=$T)" | tee -a "$SUMMARY"
peak_mem "$OUT/sft_baseline.log" "$PY" "$HERE/sft_gpu.py" baseline "$WORK" "$B" "$T" "$STEPS" 2>&1 | tee -a "$SUMMARY"
echo "== tritonrl train sft (B=$B T=$T)" | tee -a "$SUMMARY"
peak_mem "$OUT/sft_ours.log" "$BIN/tritonrl" train sft --model "$WORK/model" --data "$WORK/bench.jsonl" \
  --out "$WORK/ours" --device cuda --max-tokens "$T" --batch-tokens $((B * T)) --steps "$STEPS" \
  --lr 1e-4 --warmup 2 --no-progress 2>&1 | tee "$OUT/sft_ours.log" | tail -2 | tee -a "$SUMMARY"
"$PY" "$HERE/sft_gpu.py" ours "$WORK" | tee -a "$SUMMARY"
cp "$WORK/ours/metrics.jsonl" "$OUT/sft_ours_metrics.jsonl"
echo "== same, with --checkpoint-layers" | tee -a "$SUMMARY"
peak_mem "$OUT/sft_ours_ckpt.log" "$BIN/tritonrl" train sft --model "$WORK/model" --data "$WORK/bench.jsonl" \
  --out "$WORK/ours" --device cuda --max-tokens "$T" --batch-tokens $((B * T)) --steps "$STEPS" \
  --lr 1e-4 --warmup 2 --no-progress --checkpoint-layers 2>&1 | tail -1 | tee -a "$SUMMARY"
"$PY" "$HERE/sft_gpu.py" ours "$WORK" | tee -a "$SUMMARY"
echo "== where a step's time goes (--phase-timing, 8 steps, device synchronised per phase)" | tee -a "$SUMMARY"
"$BIN/tritonrl" train sft --model "$WORK/model" --data "$WORK/bench.jsonl" --out "$WORK/phases" --device cuda \
  --max-tokens "$T" --batch-tokens $((B * T)) --steps 8 --lr 1e-4 --warmup 2 --no-progress --phase-timing \
  >/dev/null 2>&1
"$PY" - "$WORK/phases/metrics.jsonl" <<'PY' | tee -a "$SUMMARY"
import json, statistics, sys
steps = [json.loads(l) for l in open(sys.argv[1]) if '"phase_ms"' in l][3:]  # after warm-up
keys = sorted({k for s in steps for k in s["phase_ms"]})
print("median ms per step (steps 4-8): " + ", ".join(
    "%s %.1f" % (k, statistics.median(s["phase_ms"].get(k, 0) for s in steps)) for k in keys))
PY

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
