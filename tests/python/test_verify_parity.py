"""The C++ verifier (`tritonrl verify --jsonl`) and the benchmark's Python-over-ast implementation
(bench/verify/pyverify.py) apply the same rules: on every corpus file, in both policies, they report
the same (rule, line) findings, the C++-only subset rules aside. This keeps the benchmark
comparison honest."""
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


# The candidate subset's rules (docs/rules.md, "The candidate subset") exist only in C++: the
# benchmark's Python implementation covers the functionality rules. Compare without them, with
# the outcome those rules alone give.
SUBSET_PREFIX = "func.subset_"


def _without_subset(verdict):
    violations = [f for f in verdict["violations"] if not f["rule"].startswith(SUBSET_PREFIX)]
    if any(f["rule"].startswith("syntax.") for f in violations):
        outcome = "invalid_syntax"
    elif violations:
        outcome = "invalid_functionality"
    else:
        outcome = "valid"
    return {"outcome": outcome, "violations": violations, "warnings": verdict["warnings"]}


@pytest.mark.parametrize("policy", ["standard", "strict"])
def test_cpp_and_python_agree_on_the_corpus(tmp_path, policy):
    assert pathlib.Path(BIN).exists(), f"build the tritonrl binary first ({BIN})"
    cpp = _cpp_verdicts(tmp_path, policy)
    allow = pyverify.load_allowlist()
    mismatches = []
    for p in FILES:
        py = pyverify.verify_code(p.read_text(), allow, policy)
        c = _without_subset(cpp[p.name])
        if (py["outcome"], _key(py["violations"]), _key(py["warnings"])) != \
                (c["outcome"], _key(c["violations"]), _key(c["warnings"])):
            mismatches.append((p.name, py["outcome"], _key(py["violations"]), c["outcome"],
                               _key(c["violations"])))
    assert not mismatches, mismatches
    assert len(cpp) == len(FILES)
