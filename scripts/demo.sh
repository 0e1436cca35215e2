#!/usr/bin/env bash
# The main job: `tritonrl demo` (docs/demo.md): synthetic tasks -> SFT of a small
# built-in model -> GRPO with HRD, each policy evaluated before and after on
# held-out synthetic tasks and level 1, and an HTML report in build/demo/.
# CPU default: builtin:tiny, Triton's interpreter, at most 15 minutes on 2 cores.
# Extra arguments go to `tritonrl demo` (e.g. --gpu for the H200 size).
#
#   scripts/demo.sh --eval-only   the evaluation demo: every task solution and the
#                                 hack corpus as model outputs, scored by the
#                                 sandboxed evaluator; report in build/demo-eval/
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/scripts/setup.sh"
# The demo runs the `tritonrl` command alone: build that, not the tests and benchmarks (on a fresh
# 2-core machine the tests are about half of a full build).
TRITONRL_BUILD_TARGETS=tritonrl "$ROOT/scripts/build.sh"
BIN="$ROOT/build/tritonrl"

if [[ "${1:-}" != "--eval-only" ]]; then
  exec "$BIN" demo --out "$ROOT/build/demo" "$@"
fi

OUT="$ROOT/build/demo-eval"
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
