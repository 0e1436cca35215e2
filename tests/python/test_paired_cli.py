"""`tritonrl paired`: before/after label files of `tritonrl calibrate` compared task by task. The
estimates are checked by hand (means over tasks of per-task shares); the intervals must contain
them; a run whose every task rose by the same amount as its control's did not differs from the
control by exactly the run's own gain, with a zero-width interval; bad input names the file."""

import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.path.join(BUILD, "tritonrl")


def write_labels(path, rows):
    """rows: task -> (samples, passed, outcomes dict)."""
    with open(path, "w") as f:
        for task, (samples, passed, outcomes) in rows.items():
            f.write(json.dumps({"task": task, "samples": samples, "passed": passed,
                                "pass_rate": passed / samples, "level": 1 if passed else 2,
                                "outcomes": outcomes}) + "\n")


def paired(*args, check=True):
    r = subprocess.run([TRITONRL, "paired", *map(str, args)], capture_output=True, text=True,
                       timeout=120)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def test_estimates_by_hand_and_the_control(tmp_path):
    before = {f"t{i}": (16, i, {"invalid_syntax": 16 - i, "correct_not_fast": i}) for i in range(8)}
    after = {f"t{i}": (16, i + 4, {"invalid_syntax": 12 - i, "correct_not_fast": i + 4})
             for i in range(8)}
    after["extra"] = (16, 16, {"fast": 16})  # not in `before`: left out of the pairing
    control_after = {t: (16, p + 1, {"invalid_syntax": 15 - p, "correct_not_fast": p + 1})
                     for t, (_, p, _) in before.items()}
    for name, rows in (("b", before), ("a", after), ("cb", before), ("ca", control_after)):
        write_labels(tmp_path / f"{name}.jsonl", rows)
    out = tmp_path / "paired.json"
    r = paired("--before", tmp_path / "b.jsonl", "--after", tmp_path / "a.jsonl", "--control-before",
               tmp_path / "cb.jsonl", "--control-after", tmp_path / "ca.jsonl", "--json", out)
    assert "8 tasks paired" in r.stdout, r.stdout
    j = json.load(open(out))
    assert j["tasks"] == 8
    p = j["metrics"]["pass@1"]
    # By hand: before mean of i/16 for i in 0..7 = 28/128; after adds 4/16; the control adds 1/16.
    assert abs(p["before"]["estimate"] - 28 / 128) < 1e-12
    assert abs(p["after"]["estimate"] - (28 / 128 + 0.25)) < 1e-12
    assert abs(p["difference"]["estimate"] - 0.25) < 1e-12
    assert p["difference"]["low"] == p["difference"]["high"] == p["difference"]["estimate"]
    assert abs(p["difference_from_control"]["estimate"] - 0.1875) < 1e-12
    assert p["before"]["low"] <= p["before"]["estimate"] <= p["before"]["high"]
    assert p["before"]["low"] < p["before"]["high"]  # the tasks differ, so the mean does vary
    inv = j["metrics"]["invalid"]
    assert abs(inv["difference"]["estimate"] + 0.25) < 1e-12  # invalid fell by as much
    assert "*" in r.stdout  # the control difference excludes 0


def test_bad_input_names_the_file(tmp_path):
    write_labels(tmp_path / "b.jsonl", {"t": (4, 1, {})})
    (tmp_path / "bad.jsonl").write_text('{"task": "t", "level": 1}\n{"level": 1}\n')
    r = paired("--before", tmp_path / "b.jsonl", "--after", tmp_path / "bad.jsonl", check=False)
    assert r.returncode == 2 and f"{tmp_path / 'bad.jsonl'}:2:" in r.stderr, r.stderr
    write_labels(tmp_path / "other.jsonl", {"u": (4, 1, {})})
    r = paired("--before", tmp_path / "b.jsonl", "--after", tmp_path / "other.jsonl", check=False)
    assert r.returncode == 2 and "share no task" in r.stderr, r.stderr
    r = paired("--before", tmp_path / "b.jsonl", "--after", tmp_path / "b.jsonl", "--control-before",
               tmp_path / "b.jsonl", check=False)
    assert r.returncode == 2 and "go together" in r.stderr, r.stderr
