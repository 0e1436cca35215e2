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
# samples/demo.jsonl is generated from the corpus, so it always matches it.
"$BIN" corpus tests/corpus/hacks --solutions tasks/solutions --device "$DEVICE" --as-output --out samples/demo.jsonl
# A second run with the same database resumes or serves every verdict from the cache.
"$BIN" eval --tasks tasks --samples samples/demo.jsonl --device "$DEVICE" --jobs "$(nproc)" \
  --db "$OUT/results.db" --report "$OUT/report.html"
echo "demo: report at $OUT/report.html"
