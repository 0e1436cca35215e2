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
    assert r.returncode == 2 and "same number of times" in r.stderr, r.stderr


def test_p_values_and_holm(tmp_path):
    # Every task rises by 4 of 16: each resample's mean difference is 0.25, so p = 0. A run equal
    # to its before: every resample is 0, so p = 1. --holm adjusts the two together (by hand:
    # sorted 0, 1 -> 2 x 0 = 0, max(0, 1 x 1) = 1).
    before = {f"t{i}": (16, i, {"invalid_syntax": 16 - i, "correct_not_fast": i}) for i in range(8)}
    after = {t: (16, p + 4, {"invalid_syntax": 12 - p, "correct_not_fast": p + 4})
             for t, (_, p, _) in before.items()}
    write_labels(tmp_path / "b.jsonl", before)
    write_labels(tmp_path / "a.jsonl", after)
    r = paired("--before", tmp_path / "b.jsonl", "--after", tmp_path / "a.jsonl", "--json",
               tmp_path / "up.json")
    assert "after - before 0.0000" in r.stdout, r.stdout
    paired("--before", tmp_path / "b.jsonl", "--after", tmp_path / "b.jsonl", "--json",
           tmp_path / "same.json")
    up = json.load(open(tmp_path / "up.json"))["metrics"]["pass@1"]["difference"]
    same = json.load(open(tmp_path / "same.json"))["metrics"]["pass@1"]["difference"]
    assert up["p"] == 0.0 and same["p"] == 1.0
    r = paired("--holm", tmp_path / "up.json", tmp_path / "same.json")
    rows = [line.split() for line in r.stdout.splitlines() if line.endswith(".json")]
    assert [(row[0], float(row[-3]), float(row[-2])) for row in rows] == [
        ("difference", 0.0, 0.0), ("difference", 1.0, 1.0)], r.stdout
    # A noisy family: Holm's adjusted p, computed here from the files' own p-values.
    noisy = {t: (16, max(0, p + (3 if i % 3 else -2)), {}) for i, (t, (_, p, _)) in enumerate(before.items())}
    write_labels(tmp_path / "n.jsonl", noisy)
    paired("--before", tmp_path / "b.jsonl", "--after", tmp_path / "n.jsonl", "--json", tmp_path / "n.json")
    pn = json.load(open(tmp_path / "n.json"))["metrics"]["pass@1"]["difference"]["p"]
    assert 0 < pn < 1
    r = paired("--holm", tmp_path / "n.json", tmp_path / "up.json", tmp_path / "same.json")
    got = {row[-1]: float(row[-2]) for row in (line.split() for line in r.stdout.splitlines()
                                                if line.endswith(".json"))}
    ps = sorted([(0.0, "up"), (pn, "n"), (1.0, "same")])
    expect, running = {}, 0.0
    for rank, (p, name) in enumerate(ps):
        running = max(running, min(1.0, (3 - rank) * p))
        expect[name] = running
    for name in ("n", "up", "same"):
        assert abs(got[str(tmp_path / f"{name}.json")] - expect[name]) < 1e-4, (r.stdout, expect)


def test_holm_bad_input_names_the_file(tmp_path):
    (tmp_path / "x.json").write_text("not json")
    r = paired("--holm", tmp_path / "x.json", check=False)
    assert r.returncode == 2 and str(tmp_path / "x.json") in r.stderr, r.stderr
    r = paired(check=False)
    assert r.returncode == 2 and "--before and --after are required" in r.stderr, r.stderr


def test_blocks_pair_within_each_block(tmp_path):
    """Two blocks (two runs with their own pools): pairs within each block, the estimate over all
    pairs, intervals that resample blocks; unequal counts of --before and --after are refused."""
    b1 = {f"p{i}": (8, 2, {"correct_not_fast": 2, "incorrect": 6}) for i in range(4)}
    a1 = {f"p{i}": (8, 6, {"correct_not_fast": 6, "incorrect": 2}) for i in range(4)}
    b2 = {f"q{i}": (8, 4, {"correct_not_fast": 4, "incorrect": 4}) for i in range(4)}
    a2 = {f"q{i}": (8, 4, {"correct_not_fast": 4, "incorrect": 4}) for i in range(4)}
    for name, rows in (("b1", b1), ("a1", a1), ("b2", b2), ("a2", a2)):
        write_labels(tmp_path / f"{name}.jsonl", rows)
    out = tmp_path / "blocks.json"
    r = paired("--before", tmp_path / "b1.jsonl", "--after", tmp_path / "a1.jsonl",
               "--before", tmp_path / "b2.jsonl", "--after", tmp_path / "a2.jsonl",
               "--resamples", 4000, "--json", out)
    assert "2 blocks" in r.stdout and "8 tasks paired" in r.stdout, r.stdout
    j = json.load(open(out))
    assert j["blocks"] == 2 and j["tasks"] == 8
    d = j["metrics"]["pass@1"]["difference"]
    # Block 1 rose by 0.5 on every task, block 2 by 0: the mean is 0.25, and a resample that
    # draws one block twice gives 0.5 or 0, so the interval spans both.
    assert abs(d["estimate"] - 0.25) < 1e-12
    assert d["low"] == 0.0 and d["high"] == 0.5, d
    r = paired("--before", tmp_path / "b1.jsonl", "--after", tmp_path / "a1.jsonl",
               "--before", tmp_path / "b2.jsonl", check=False)
    assert r.returncode == 2 and "same number of times" in r.stderr, r.stderr
