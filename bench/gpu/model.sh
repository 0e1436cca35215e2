#!/usr/bin/env bash
# GPU proof for the model module (run on the H200 machine; see docs/model.md).
# Needs: $BIN with model_parity and tritonrl (built with libtorch 2.11.0+cu130),
# $OUT for logs, python3 with torch, transformers and tokenizers.
# Steps (each prints PASS/FAIL and the run continues on failure):
#   1 random Qwen3 model of Qwen3-0.6B's shape + trained byte-level BPE tokenizer
#   2 logits parity fp32 and bf16 vs transformers
#   3 tokenizer id parity on >= 10,000 strings vs tokenizers
#   4 decode 64 x 512 and prefill throughput vs transformers, with the roofline
#   5 `tritonrl generate` smoke run on the saved model
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYSCRIPT="$HERE/../model/model_gpu.py"
: "${BIN:?set BIN to the folder with model_parity and tritonrl}"
: "${OUT:?set OUT to the folder for logs}"
PY="${PYTHON:-python3}"
WORK="${WORK:-$(mktemp -d /tmp/tritonrl_model.XXXXXX)}"
mkdir -p "$OUT" "$WORK"
SUMMARY="$OUT/model_summary.txt"
: >"$SUMMARY"
# Our binaries link the same libtorch 2.11.0+cu130 as this machine's torch wheel:
# use its libraries, and the CUDA libraries of the nvidia-* wheels beside it.
TORCH_LIBS="$("$PY" -c 'import glob, os, torch
d = os.path.dirname(torch.__file__)
print(":".join([os.path.join(d, "lib")] + sorted(glob.glob(os.path.join(os.path.dirname(d), "nvidia", "*", "lib")))))')"
export LD_LIBRARY_PATH="$BIN:$TORCH_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for exe in model_parity tritonrl; do
  if ldd "$BIN/$exe" | grep -q "not found"; then
    echo "WARNING: $exe has unresolved libraries:" | tee -a "$OUT/model_summary.txt"
    ldd "$BIN/$exe" | grep "not found" | tee -a "$OUT/model_summary.txt"
  fi
done
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >>"$SUMMARY" 2>&1 || true

step() {  # step NAME LOG -- command...
  local name="$1" log="$2"
  shift 2
  local t0=$SECONDS
  "$@" >>"$log" 2>&1
  local rc=$?
  local line
  if [[ $rc -eq 0 ]]; then line="PASS $name ($((SECONDS - t0)) s)"; else line="FAIL $name (exit $rc, $((SECONDS - t0)) s; see $(basename "$log"))"; fi
  echo "$line" | tee -a "$SUMMARY"
  grep -E '^(PASS|FAIL) ' "$log" | sed 's/^/    /' | tail -n 8 >>"$SUMMARY"
}

step assets "$OUT/model_assets.log" "$PY" "$PYSCRIPT" assets "$WORK"
step inputs "$OUT/model_assets.log" "$PY" "$PYSCRIPT" ids "$WORK"
step logits_fp32 "$OUT/model_logits.log" "$PY" "$PYSCRIPT" logits "$WORK" "$BIN" fp32
step logits_bf16 "$OUT/model_logits.log" "$PY" "$PYSCRIPT" logits "$WORK" "$BIN" bf16
step tokenizer "$OUT/model_tokenizer.log" "$PY" "$PYSCRIPT" tokenizer "$WORK" "$BIN"
step bench "$OUT/model_bench.log" "$PY" "$PYSCRIPT" bench "$WORK" "$BIN"
step generate_cli "$OUT/model_generate.log" \
  "$BIN/tritonrl" generate --model "$WORK/model" --prompt "def relu(x):" --n 4 \
  --temperature 0.8 --max-new-tokens 64 --device cuda --dtype bf16
step generate_builtin "$OUT/model_generate.log" \
  "$BIN/tritonrl" generate --model builtin:tiny --prompt "hello" --n 2 --max-new-tokens 16 --device cuda

echo
echo "== model summary =="
cat "$SUMMARY"
echo
echo "== throughput table =="
sed -n '/roofline arithmetic/,$p' "$OUT/model_bench.log" 2>/dev/null | grep -vE '^\+ ' || true
