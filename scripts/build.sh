#!/usr/bin/env bash
# Configure and build into build/ (Ninja, RelWithDebInfo, warnings as errors).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TRITONRL_BUILD_DIR:-$ROOT/build}"
if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
fi
cmake --build "$BUILD" -j"$(nproc)"
