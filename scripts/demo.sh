#!/usr/bin/env bash
# The main job on the built-in default: evaluate the bundled samples (every task
# solution plus the hack corpus, as full model outputs) against the built-in
# suite with the sandboxed evaluator, on the GPU if there is one, else on the
# CPU through Triton's interpreter, and write the HTML report.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
BIN="$ROOT/build/tritonrl"
OUT="$ROOT/build/demo"
mkdir -p "$OUT" "$ROOT/samples"
DEVICE=cpu
[[ -e /dev/nvidia0 ]] && DEVICE=cuda
# The samples are generated from the corpus for this device (CPU leaves out GPU-only files), so they
# always match it; samples/demo.jsonl is the committed GPU set for use without a build.
SAMPLES="$OUT/samples.jsonl"
"$BIN" corpus tests/corpus/hacks --solutions tasks/solutions --device "$DEVICE" --as-output --out "$SAMPLES"
# A second run with the same database resumes or serves every verdict from the cache.
"$BIN" eval --tasks tasks --samples "$SAMPLES" --device "$DEVICE" --jobs "$(nproc)" \
  --db "$OUT/results.db" --report "$OUT/report.html"
echo "demo: report at $OUT/report.html"
