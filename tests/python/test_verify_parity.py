"""The C++ verifier (`tritonrl verify --jsonl`) and the benchmark's Python-over-ast implementation
(bench/verify/pyverify.py) apply the same rules: on every corpus file, in both policies, they report
the same (rule, line) findings. This keeps the benchmark comparison honest."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "verify"))
import pyverify  # noqa: E402

BIN = os.environ.get("TRITONRL_BIN", str(ROOT / "build" / "tritonrl"))
FILES = sorted((ROOT / "tests" / "corpus" / "legit").glob("*.py")) + \
    sorted((ROOT / "tests" / "corpus" / "hacks").glob("*.py"))


def _cpp_verdicts(tmp_path, policy):
    samples = tmp_path / "samples.jsonl"
    with samples.open("w") as f:
        for p in FILES:
            f.write(json.dumps({"task": "t", "sample": p.name, "code": p.read_text()}) + "\n")
    proc = subprocess.run([BIN, "verify", "--jsonl", str(samples), "--policy", policy],
                          capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    return {v["sample"]: v for v in map(json.loads, proc.stdout.splitlines())}


def _key(findings):
    return sorted((f["rule"], f["line"]) for f in findings)


@pytest.mark.parametrize("policy", ["standard", "strict"])
def test_cpp_and_python_agree_on_the_corpus(tmp_path, policy):
    assert pathlib.Path(BIN).exists(), f"build the tritonrl binary first ({BIN})"
    cpp = _cpp_verdicts(tmp_path, policy)
    allow = pyverify.load_allowlist()
    mismatches = []
    for p in FILES:
        py = pyverify.verify_code(p.read_text(), allow, policy)
        c = cpp[p.name]
        if (py["outcome"], _key(py["violations"]), _key(py["warnings"])) != \
                (c["outcome"], _key(c["violations"]), _key(c["warnings"])):
            mismatches.append((p.name, py["outcome"], _key(py["violations"]), c["outcome"],
                               _key(c["violations"])))
    assert not mismatches, mismatches
    assert len(cpp) == len(FILES)
