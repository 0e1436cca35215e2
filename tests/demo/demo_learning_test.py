"""`tritonrl demo --learning` at a tiny CPU size (builtin:tiny, Triton's interpreter): the learning
experiment's stages end to end, then again to check they resume from their outputs. Nothing is
correct at this size, so it checks structure and arithmetic, not learning: the pool is the
selection rule applied to the calibration's own counts (once with every candidate taken, the
smoke-test flag, once with the 0 < p < 1 rule, whose empty pool must stop the demo and say so),
the paired numbers equal the per-task shares recomputed here from the per-sample JSONL, every
interval holds its point estimate, and the report opens with the before/after table.

Usage: demo_learning_test.py TRITONRL_BINARY SUITE_DIR"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile

BIN, SUITE = sys.argv[1], sys.argv[2]
TINY = ["--learning", "--suite", SUITE, "--train-tasks", "3", "--rl-tasks", "3",
        "--heldout-tasks", "2", "--k", "2", "--max-new-tokens", "16", "--sft-steps", "3",
        "--grpo-steps", "2", "--group", "2", "--tasks-per-step", "1", "--calibrate-k", "2",
        "--pool-k", "2", "--resamples", "500", "--jobs", "2"]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def demo(out, *extra):
    return subprocess.run([BIN, "demo", "--out", out, *TINY, *extra], capture_output=True,
                          text=True, timeout=1200)


def shares(rows):
    """Per task: pass@1 and the invalid_syntax share, from the per-sample verdict lines."""
    per = {}
    for r in rows:
        per.setdefault(r["task"], []).append(r)
    return {t: {"pass@1": sum(x["outcome"] == "correct" for x in v) / len(v),
                "invalid_syntax": sum(x["outcome"] == "invalid_syntax" for x in v) / len(v)}
            for t, v in per.items()}


def check_pool_rule(out, summary, take_all):
    labels = read_jsonl(os.path.join(out, "calibrate", "labels.jsonl"))
    cal = summary["learning"]["calibration"]
    check(len(labels) == 3 == cal["candidates"], f"3 candidates calibrated: {cal}")
    check(all(l["samples"] == 2 for l in labels), "k=2 calibration samples per candidate")
    sometimes = [l["task"] for l in labels if 0 < l["passed"] < l["samples"]]
    expected = [l["task"] for l in labels] if take_all else sometimes
    check(cal["pool"] == expected, f"pool {cal['pool']} != rule applied to counts {expected}")
    check(cal["never"] == sum(l["passed"] == 0 for l in labels), "never count")
    check(cal["sometimes"] == len(sometimes), "sometimes count")
    check(cal["pool_meets_minimum"] == (len(expected) >= cal["pool_min"]), "minimum flag")
    check(set(cal["pool"]) <= set(summary["rl_tasks"]), "the pool is drawn from the candidates")
    check(not set(summary["rl_tasks"]) & set(summary["train_tasks"]),
          "the candidates are not SFT tasks")


def check_paired(out, summary):
    paired = summary["learning"]["paired"]
    check(paired["resamples"] == 500 and paired["level"] == 0.95, f"bootstrap settings {paired}")
    check(paired["seed"] == 202 and paired["k"] == 2, "control and GRPO sampled at seed 202, k=2")
    before = shares(read_jsonl(os.path.join(out, "eval", "control_pool.jsonl")))
    after = shares(read_jsonl(os.path.join(out, "eval", "grpo_pool.jsonl")))
    check(set(before) == set(after) == set(summary["learning"]["calibration"]["pool"]),
          "both evaluations cover the pool")
    check(paired["tasks"] == len(before), "tasks paired")
    for metric in ("pass@1", "invalid_syntax"):
        m = paired["metrics"][metric]
        b = sum(v[metric] for v in before.values()) / len(before)
        a = sum(v[metric] for v in after.values()) / len(after)
        check(abs(m["before"]["estimate"] - b) < 1e-9, f"{metric} before {m['before']} != {b}")
        check(abs(m["after"]["estimate"] - a) < 1e-9, f"{metric} after {m['after']} != {a}")
        check(abs(m["difference"]["estimate"] - (a - b)) < 1e-9, f"{metric} difference")
    for metric, m in paired["metrics"].items():
        for part in ("before", "after", "difference"):
            i = m[part]
            check(i["low"] - 1e-12 <= i["estimate"] <= i["high"] + 1e-12,
                  f"{metric} {part}: interval {i} does not hold its estimate")
    return paired


def check_report(out, paired):
    with open(os.path.join(out, "report.html")) as f:
        page = f.read()
    body = page[page.index("<body>"):]
    first_table = re.search(r'<table id="([^"]+)"', body)
    check(first_table and first_table.group(1) == "learning", "the report opens with the table")
    check(body.index('id="learning"') < body.index("<h2>What happened"), "table before notes")
    check("Smoke test" in body, "the smoke-test pool is flagged in the report")
    row = re.search(r'<tr data-metric="pass@1">(.*?)</tr>', body)
    check(row, "a pass@1 row")
    cells = [html.unescape(c) for c in re.findall(r'<td class="num">(.*?)</td>', row.group(1))]
    m = paired["metrics"]["pass@1"]
    check(cells[0].startswith(f"{m['before']['estimate']:.3f} [{m['before']['low']:.3f}, "),
          f"before cell {cells[0]}")
    check(cells[2].startswith(f"{m['difference']['estimate']:+.3f} ["), f"difference {cells[2]}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "all")
        r = demo(out, "--pool-all-candidates")
        check(r.returncode == 0, f"demo failed:\n{r.stderr[-3000:]}")
        with open(os.path.join(out, "eval", "summary.json")) as f:
            summary = json.load(f)
        check_pool_rule(out, summary, take_all=True)
        check_report(out, check_paired(out, summary))
        # Again: every stage reads its outputs back, the numbers stay.
        r = demo(out, "--pool-all-candidates")
        check(r.returncode == 0, f"resumed demo failed:\n{r.stderr[-3000:]}")
        for stage in ("sft", "calibrate", "grpo", "control-eval", "grpo-eval"):
            check(f"demo: {stage}: finished in an earlier run" in r.stderr, f"{stage} resumed")
        with open(os.path.join(out, "eval", "summary.json")) as f:
            again = json.load(f)
        check(again["learning"]["paired"]["metrics"] == summary["learning"]["paired"]["metrics"],
              "the resumed paired numbers equal the first run's")
        # The design's rule: nothing is solved at this size, so the pool is empty, and the demo
        # stops at calibrate saying why, with the calibration in the summary.
        rule = os.path.join(tmp, "rule")
        r = demo(rule)
        check(r.returncode == 2 and "stage calibrate" in r.stderr and
              "nothing to learn from" in r.stderr, f"empty pool not reported:\n{r.stderr[-2000:]}")
        with open(os.path.join(rule, "eval", "summary.json")) as f:
            check_pool_rule(rule, json.load(f), take_all=False)
    print("ok")


main()
