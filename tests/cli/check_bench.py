"""Checks a `tritonrl bench` run folder: the metrics of bench.json recomputed from its own
per-sample verdicts (independently of src/metrics: counts and the pass@k definition by brute
force over subsets), the failed task reported as such and in no figure, the HTML's per-level
rows, and optionally the same results as another run folder."""
import argparse
import itertools
import json
import pathlib
import sys


def pass_at_k(flags, k):
    """Share of k-subsets of the task's samples with at least one passing (brute force)."""
    subsets = list(itertools.combinations(flags, k))
    return sum(any(s) for s in subsets) / len(subsets)


def recompute(samples, ks):
    by_task = {}
    for s in samples:
        by_task.setdefault(s["task"], []).append(s)
    n = len(samples)
    out = {
        "samples": n,
        "tasks": len(by_task),
        "valid": sum(s["valid"] for s in samples) / n,
        "compiled": sum(s["compiled"] for s in samples) / n,
        "correct": sum(s["correct"] for s in samples) / n,
        "pass_at_k": {
            f"correct@{k}": sum(pass_at_k([s["correct"] for s in ss], k)
                                for ss in by_task.values()) / len(by_task)
            for k in ks
        },
        "outcome_shares": {
            "invalid_syntax": sum(s["outcome"] == "invalid_syntax" for s in samples) / n,
            "invalid_functionality":
                sum(s["outcome"] == "invalid_functionality" for s in samples) / n,
            "correct": sum(s["outcome"] == "correct" for s in samples) / n,
            "other": sum(s["outcome"] not in ("invalid_syntax", "invalid_functionality",
                                              "correct") for s in samples) / n,
        },
    }
    # Figure 5's correct class split by speed (fast: speedup > 1), unknown (None) where correct
    # samples exist and none of them was timed.
    correct = [s for s in samples if s["outcome"] == "correct" and s["correct"]]
    known = not correct or any(s["speedup"] is not None for s in correct)
    fast = sum(s["speedup"] is not None and s["speedup"] > 1 for s in correct)
    out["outcome_shares"]["fast"] = fast / n if known else None
    out["outcome_shares"]["correct_not_fast"] = (len(correct) - fast) / n if known else None
    return out


def same(got, want):
    if want is None or got is None:
        return got is None and want is None
    return abs(got - want) <= 1e-12


def check_shares(group, want):
    """The Figure 5 shares of one group of bench.json against those recomputed here."""
    for key, v in want["outcome_shares"].items():
        if not same(group["outcome_shares"][key], v):
            fail(f"{group['name']} share {key} = {group['outcome_shares'][key]}, want {v}")


def fail(msg):
    print("check_bench:", msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--failed", default="")
    ap.add_argument("--samples", type=int, required=True)
    ap.add_argument("--min-correct", type=int, default=0)
    ap.add_argument("--same-as")
    a = ap.parse_args()
    run = pathlib.Path(a.run)
    doc = json.loads((run / "bench.json").read_text())
    samples = doc["samples"]
    per_task = {}
    for s in samples:
        per_task.setdefault(s["task"], []).append(s)
    if any(len(v) != a.samples for v in per_task.values()):
        fail(f"not {a.samples} samples per task: { {t: len(v) for t, v in per_task.items()} }")
    # The broken task: every sample flagged, listed as failed, in no figure.
    if not a.failed:
        if doc["failed_tasks"]:
            fail(f"failed_tasks is {doc['failed_tasks']}")
        want = recompute(samples, [1, 2])
        for key in ("valid", "compiled", "correct"):
            if abs(doc["summary"]["overall"][key] - want[key]) > 1e-12:
                fail(f"overall.{key} = {doc['summary']['overall'][key]}, recomputed {want[key]}")
        for key, v in want["pass_at_k"].items():
            if abs(doc["summary"]["overall"]["pass_at_k"][key] - v) > 1e-12:
                fail(f"pass {key} = {doc['summary']['overall']['pass_at_k'][key]}, want {v}")
        check_shares(doc["summary"]["overall"], want)
        for group in doc["summary"]["levels"]:
            check_shares(group, recompute(
                [s for s in samples if s["task"].startswith(group["name"] + "/")], [1, 2]))
        print(f"check_bench: {run.name}: {want}")
        return
    broken = per_task.get(a.failed)
    # Samples that reached the runtime carry the flag (a statically rejected one never ran the
    # reference); one is enough to make every sample of the task the task's failure.
    ran = [s for s in broken or [] if s["outcome"] not in ("invalid_syntax", "invalid_functionality")]
    if not ran or not all("reference_failed" in s["flags"] for s in ran):
        fail(f"{a.failed}'s samples that ran are not all flagged reference_failed")
    if list(doc["failed_tasks"]) != [a.failed]:
        fail(f"failed_tasks is {doc['failed_tasks']}")
    counted = [s for s in samples if s["task"] != a.failed]
    if any("reference_failed" in s["flags"] for s in counted):
        fail("a sample of a good task is flagged reference_failed")
    ks = [1, 2]
    want = recompute(counted, ks)
    for group in [doc["summary"]["overall"]] + doc["summary"]["levels"]:
        if group["failed_tasks"] != 1 or group["failed_task_samples"] != a.samples:
            fail(f"{group['name']}: failed counts {group['failed_tasks']}")
        for key in ("samples", "tasks"):
            if group[key] != want[key]:
                fail(f"{group['name']}.{key} = {group[key]}, recomputed {want[key]}")
        for key in ("valid", "compiled", "correct"):
            if abs(group[key] - want[key]) > 1e-12:
                fail(f"{group['name']}.{key} = {group[key]}, recomputed {want[key]}")
        for key, v in want["pass_at_k"].items():
            if abs(group["pass_at_k"][key] - v) > 1e-12:
                fail(f"{group['name']} pass {key} = {group['pass_at_k'][key]}, recomputed {v}")
        check_shares(group, want)
    if sum(s["correct"] for s in counted) < a.min_correct:
        fail(f"fewer than {a.min_correct} correct samples")
    if doc["requests"]["received"] != len(samples):
        fail(f"requests {doc['requests']} but {len(samples)} samples")
    html = (run / "report.html").read_text()
    table = html[html.index('id="metrics-table"'):]
    table = table[:table.index("</table>")]
    if "<td>level1</td>" not in table or "<td>all</td>" not in table:
        fail("report.html's metrics table lacks the level1 / all rows")
    if "tasks whose reference failed" not in html:
        fail("report.html does not name the failed tasks")
    if a.same_as:
        other = json.loads((pathlib.Path(a.same_as) / "bench.json").read_text())
        key = lambda s: (s["task"], s["sample"], s["outcome"], s["correct"], sorted(s["flags"]))
        if sorted(map(key, samples)) != sorted(map(key, other["samples"])):
            fail("per-sample verdicts differ from " + a.same_as)
        if doc["summary"] != other["summary"]:
            fail("summary differs from " + a.same_as)
    print(f"check_bench: {run.name}: {want}")


main()
