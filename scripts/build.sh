#!/usr/bin/env bash
# Configure and build into build/ (Ninja, RelWithDebInfo, warnings as errors).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TRITONRL_BUILD_DIR:-$ROOT/build}"
if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
else
  # The tests that need .venv (pyast difftest, suite audit) or libtorch (model tests) exist only
  # if the configure found them: configure again when they appeared since.
  cache="$BUILD/CMakeCache.txt"
  again=""
  if grep -q '^TRITONRL_FOUND_VENV:INTERNAL=OFF$' "$cache" && [[ -x "$ROOT/.venv/bin/python" ]]; then
    again=".venv"
  fi
  if grep -q '^TRITONRL_FOUND_TORCH:INTERNAL=OFF$' "$cache" &&
    ! grep -q '^TRITONRL_TORCH:STRING=OFF$' "$cache" &&
    compgen -G "$ROOT/.venv/lib/python3*/site-packages/torch/share/cmake/Torch/TorchConfig.cmake" >/dev/null; then
    again="${again:+$again and }libtorch"
  fi
  if [[ -n "$again" ]]; then
    echo "build: $again appeared since the last configure; configuring again" >&2
    cmake -S "$ROOT" -B "$BUILD" "$@"
  fi
fi
# TRITONRL_BUILD_TARGETS (space-separated): build only these (the demo builds the `tritonrl`
# command alone; the tests need everything).
targets=()
for t in ${TRITONRL_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$BUILD" -j"$(nproc)" "${targets[@]}"
