#!/usr/bin/env bash
# The test command (README, .ci/run): set up, build, run every C++ test (ctest)
# and every Python test (pytest). Fails if either fails or if either ran no test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/scripts/setup.sh" --tests
"$ROOT/scripts/build.sh"
# Clang's thread-safety analysis over the code that uses base/mutex.h's annotated locks.
"$ROOT/scripts/check_thread_safety.sh"

JOBS="$(nproc)"
n_ctest="$(ctest --test-dir build -N | sed -n 's/^Total Tests: \([0-9]*\)$/\1/p')"
if [[ -z "$n_ctest" || "$n_ctest" -eq 0 ]]; then
  echo "test: ctest found no tests" >&2
  exit 1
fi
# Tests created only when the configure found .venv or libtorch: their absence is a failure,
# not a smaller green run.
listed="$(ctest --test-dir build -N)"
for required in "model\." "pyast_difftest" "tasks_cli_audit_builtin_suite_small"; do
  if ! grep -Eq "Test +#[0-9]+: ${required}" <<<"$listed"; then
    echo "test: no ctest matching '${required}' (configured without .venv or libtorch?" \
      "run scripts/setup.sh, then scripts/build.sh)" >&2
    exit 1
  fi
done
ctest --test-dir build --output-on-failure -j"$JOBS" --timeout 1800

# pytest exits 5 when it collects nothing, which fails this script too.
TRITONRL_BIN="$ROOT/build/tritonrl" "$ROOT/.venv/bin/python" -m pytest -q tests/python
echo "test: all passed ($n_ctest C++ tests and the Python tests above)"
