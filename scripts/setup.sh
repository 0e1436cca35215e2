#!/usr/bin/env bash
# One-time (and idempotent, quick when done) set-up of a fresh Debian machine:
# system packages through apt-get, and the project-local Python environment in .venv.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config git ccache
  clang libclang-rt-14-dev clang-format
  nlohmann-json3-dev libsqlite3-dev sqlite3 libcli11-dev libfmt-dev libcpp-httplib-dev
  libssl-dev openssl  # httplib.h includes OpenSSL (https in data distill); tests make certificates
  libpcre2-dev libseccomp-dev libgtest-dev libgmock-dev libbenchmark-dev
  libsnappy-dev zlib1g-dev libzstd-dev
  ca-certificates  # configure downloads llama.cpp's Jinja engine from PyPI over https (third_party/)
  libgloo-dev  # headers for c10d's Gloo process group (data-parallel training)
)
# `setup.sh --tests` (scripts/test.sh): what only the tests need. Chromium lays the HTML reports
# out headless (tests/report/render_test.cpp); the main job never starts it.
if [[ "${1:-}" == "--tests" ]]; then
  APT_PACKAGES+=(chromium)
fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# Python: the runner needs CPython 3.12 (the GPU machine runs 3.12, and pyast's
# differential test compares against this interpreter's ast.dump).
find_python() {
  for c in "${TRITONRL_PYTHON:-}" python3.12 "$HOME/.pyenv/versions/"3.12*/bin/python3.12 /usr/bin/python3.12; do
    [[ -n "$c" ]] || continue
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; assert sys.version_info[:2]==(3,12)' 2>/dev/null; then
      command -v "$c"; return 0
    fi
  done
  return 1
}

REQ="$ROOT/python/requirements.txt"
STAMP="$ROOT/.venv/.requirements.sha256"
want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [[ ! -x "$ROOT/.venv/bin/python" ]] || [[ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]]; then
  PY="$(find_python)" || { echo "setup: CPython 3.12 not found (set TRITONRL_PYTHON)" >&2; exit 1; }
  [[ -x "$ROOT/.venv/bin/python" ]] || "$PY" -m venv "$ROOT/.venv"
  "$ROOT/.venv/bin/pip" install -q -r "$REQ"
  echo "$want" >"$STAMP"
fi
echo "setup: ok ($("$ROOT/.venv/bin/python" -c 'import sys,torch,triton,numpy; print(f"python {sys.version.split()[0]}, torch {torch.__version__}, triton {triton.__version__}, numpy {numpy.__version__}")'))"
