#!/usr/bin/env bash
# `tritonrl tasks audit` on the CPU audits by default only what `tritonrl eval` runs there (the
# small variant; a file without VARIANTS its "default"), and every variant with --variants all.
#   audit_default_test.sh TRITONRL ROOT PYTHON
set -euo pipefail
BIN="$1"
ROOT="$2"
PY="$3"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
mkdir "$T/suite"
cat >"$T/suite/tiny_gelu.py" <<'TASK'
import torch
import torch.nn as nn

VARIANTS = {"medium": {"n": 64}, "small": {"n": 16}, "large": {"n": 128}}
n = 64


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(x) * 2.0 + 0.5


def get_inputs():
    return [torch.randn(n, n)]


def get_init_inputs():
    return []
TASK
"$BIN" tasks audit "$T/suite" --device cpu --json --python "$PY" >"$T/eval.json"
"$BIN" tasks audit "$T/suite" --device cpu --json --python "$PY" --variants all >"$T/all.json"
"$BIN" tasks audit "$ROOT/tests/eval/weak_task/suite" --device cpu --json --python "$PY" >"$T/kb.json" || true
"$PY" - "$T" <<'PY'
import json, sys
t = sys.argv[1]
variants = lambda name: [r["variant"] for r in json.load(open(f"{t}/{name}.json"))["results"]]
assert variants("eval") == ["small"], variants("eval")
assert variants("all") == ["medium", "small", "large"], variants("all")
kb = json.load(open(f"{t}/kb.json"))["results"]
assert [r["variant"] for r in kb] == ["default"], kb
assert kb[0]["status"] == "fail" and "zeros" in kb[0]["passed_null_models"], kb[0]
print("audit default variants: ok")
PY
