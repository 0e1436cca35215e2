#!/usr/bin/env bash
# The main job on the built-in default. Grows with the project: today it parses
# the bundled Python files with tritonrl's own parser.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
"$ROOT/build/tritonrl" --version
