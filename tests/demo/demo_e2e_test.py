"""`tritonrl demo --quick` end to end (real synth, SFT, GRPO, scoring on the CPU
interpreter), with an ablation mode, two GRPO seeds, one SFT task in the RL pool and
dynamic sampling (two rounds a step): the report exists with the before/after table
and the curves, the stage outputs exist, the held-out tasks are disjoint from SFT and
RL, which share exactly the one task, each stage used its own, every GRPO step (all
groups constant at this size) took its two rounds, the GRPO seed changes the rollouts,
and the report's numbers equal the ones recomputed here from the per-sample eval
JSONL. A failing stage names itself and keeps earlier outputs.

Usage: demo_e2e_test.py TRITONRL_BINARY SUITE_DIR"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN, SUITE = sys.argv[1], sys.argv[2]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def hand_numbers(rows, k):
    """pass@1, pass@k, valid, correct and shares computed from verdict lines."""
    per_task = {}
    for r in rows:
        per_task.setdefault(r["task"], []).append(r["outcome"] == "correct")

    def pass_at(n, c, kk):
        if n - c < kk:
            return 1.0
        return 1.0 - math.comb(n - c, kk) / math.comb(n, kk)

    n = len(rows)
    share = lambda pred: sum(1 for r in rows if pred(r)) / n
    return {
        "pass@1": sum(sum(v) / len(v) for v in per_task.values()) / len(per_task),
        "pass@k": sum(pass_at(len(v), sum(v), k) for v in per_task.values()) / len(per_task),
        "valid": share(lambda r: r["valid"]),
        "correct": share(lambda r: r["outcome"] == "correct"),
        "invalid_syntax": share(lambda r: r["outcome"] == "invalid_syntax"),
        "invalid_functionality": share(lambda r: r["outcome"] == "invalid_functionality"),
        "incorrect": share(lambda r: r["outcome"] not in
                           ("invalid_syntax", "invalid_functionality", "correct")),
        "tasks": len(per_task),
        "samples": n,
    }


def main():
    out = tempfile.mkdtemp(prefix="tritonrl_demo_e2e_")
    p = subprocess.run([BIN, "demo", "--quick", "--ablation", "uniform", "--ablation-seeds", "2",
                        "--rl-sft-tasks", "1", "--max-sample-rounds", "2", "--out", out, "--suite",
                        SUITE],
                       capture_output=True, text=True, timeout=1200)
    print(p.stderr[-4000:])
    print(p.stdout)
    check(p.returncode == 0, f"demo exited {p.returncode}")
    report = os.path.join(out, "report.html")
    check(f"report at {report}" in p.stdout, "the demo does not print where the report is")
    grpo_stages = ("grpo", "grpo-uniform", "grpo-hrd-seed1", "grpo-uniform-seed1")
    for stage in ("synth", "records", "base-eval", "sft", "sft-eval", "report") + grpo_stages + tuple(
            s + "-eval" for s in grpo_stages):
        check(f"demo: stage {stage} done" in p.stderr, f"no progress line for stage {stage}")

    # Stage outputs.
    sft = read_jsonl(os.path.join(out, "sft", "metrics.jsonl"))
    losses = [r["loss"] for r in sft if "loss" in r]
    check(len(losses) == 3, f"SFT logged {len(losses)} losses, want 3 (--quick: 3 steps)")
    check(all(math.isfinite(x) and x > 0 for x in losses), f"SFT losses {losses}")
    check(os.path.isfile(os.path.join(out, "grpo", "metrics.jsonl")), "no grpo/metrics.jsonl")
    steps = read_jsonl(os.path.join(out, "grpo_steps.jsonl"))
    check([s["step"] for s in steps] == [1, 2], f"GRPO steps {[s['step'] for s in steps]}")
    for s in steps:
        for key in ("valid_rate", "correct_rate", "compiled_rate"):
            check(0.0 <= s[key] <= 1.0, f"GRPO step {s['step']} {key}={s[key]}")
        # The tiny policy's groups are all constant: each step samples a second round.
        check(s["rounds"] == 2 and s["sampled_groups"] == 2 and s["informative_groups"] == 0 and
              s["filtered_groups"] == 2, f"GRPO step {s['step']} dynamic sampling {s}")
    # The ablation: GRPO again from the same SFT checkpoint in uniform mode, held-out only.
    ablation = read_jsonl(os.path.join(out, "grpo-uniform_steps.jsonl"))
    check([s["step"] for s in ablation] == [1, 2], f"ablation steps {[s['step'] for s in ablation]}")
    summary = json.load(open(os.path.join(out, "eval", "summary.json")))
    check(summary["grpo-uniform"]["mode"] == "uniform" and summary["grpo"]["mode"] == "hrd",
          "GRPO modes in summary.json")
    check(len(summary["evals"]) == 9, f"{len(summary['evals'])} evaluations, want 9")

    # The held-out set is disjoint from the others; the RL pool holds 2 new tasks and the one
    # SFT task asked for; SFT saw exactly its own, GRPO drew only RL tasks.
    sft_ids, rl_ids = set(summary["train_tasks"]), set(summary["rl_tasks"])
    heldout_ids = set(summary["heldout_tasks"])
    check(len(sft_ids) == 3 and len(rl_ids) == 3 and len(heldout_ids) == 2,
          f"task split {len(sft_ids)}/{len(rl_ids)}/{len(heldout_ids)}, want 3/3/2")
    check(sft_ids & rl_ids == set(summary["rl_sft_tasks"]) and len(summary["rl_sft_tasks"]) == 1,
          f"SFT tasks in the RL pool: {sft_ids & rl_ids}, summary {summary['rl_sft_tasks']}")
    check(not (sft_ids & heldout_ids) and not (rl_ids & heldout_ids),
          "the held-out tasks overlap the SFT or RL tasks")
    check(summary["grpo"]["rounds"] == 4 and summary["grpo"]["sampled_groups"] == 4,
          f"GRPO's dynamic sampling totals {summary['grpo']}")
    sft_records = read_jsonl(os.path.join(out, "synth", "sft_train.jsonl"))
    check({r["task"] for r in sft_records} == sft_ids,
          "SFT records are not exactly the SFT tasks")
    rollouts = {st: read_jsonl(os.path.join(out, st, "rollouts.jsonl")) for st in grpo_stages}
    for st, rows in rollouts.items():
        check(rows and {r["task"] for r in rows} <= rl_ids, f"{st} rolled out a task not in rl_tasks")

    # Seeds: the same seed gives each mode the same first-step rollouts (same policy, same
    # sampling), another seed other ones.
    def step1(st):
        return [(r["task"], r["response"]) for r in rollouts[st] if r["step"] == 1]
    check(step1("grpo") == step1("grpo-uniform"), "two modes at one seed sampled differently")
    check(step1("grpo") != step1("grpo-hrd-seed1"), "GRPO seed 1 sampled what seed 0 did")
    check([summary[st]["seed"] for st in grpo_stages] == [0, 0, 1, 1], "GRPO seeds in summary.json")
    runs = summary["grpo_runs"]
    check([r["stage"] for r in runs] == list(grpo_stages), f"grpo_runs {runs}")
    for mode in ("hrd", "uniform"):
        a = summary["ablation"][mode]
        check(a["seeds"] == [0, 1], f"ablation {mode} seeds {a['seeds']}")
        values = [r["heldout_pass_at_1"] for r in runs if r["mode"] == mode]
        check(a["heldout_pass_at_1"] == values and a["min"] == min(values) and
              a["max"] == max(values) and abs(a["mean"] - sum(values) / 2) < 1e-12,
              f"ablation {mode} spread {a}")
        for r in runs:
            ev = [e for e in summary["evals"] if e["stage"] == r["stage"] and e["suite"] == "heldout"]
            check(len(ev) == 1 and ev[0]["pass_at_1"] == r["heldout_pass_at_1"],
                  f"{r['stage']}: held-out pass@1 differs from its evaluation")

    html = open(report).read()
    for marker in ('id="before-after"', 'id="demo-shares"', 'id="sft-loss"', 'id="grpo-reward"',
                   'id="grpo-rates"'):
        check(marker in html, f"report lacks {marker}")
    check("<polyline" in html, "report draws no curve")
    check("Ablation, GRPO from the same SFT checkpoint" in html, "report lacks the ablation note")
    check("(seed 1)" in html and "mean " in html, "the ablation note lacks the seeds' spread")

    # Every report row equals the numbers recomputed from that evaluation's JSONL.
    cols = ["tasks", "samples", "k", "pass@1", "pass@k", "valid", "compiled", "correct", "fast1",
            "invalid_syntax", "invalid_functionality", "incorrect", "correct_share", "truncated"]
    rows = re.findall(r'<tr data-stage="([\w-]+)" data-suite="(\w+)">(.*?)</tr>', html)
    check(len(rows) == 9, f"{len(rows)} before/after rows, want 9")
    seen = set()
    for stage, suite, cells in rows:
        values = dict(zip(cols, re.findall(r'<td class="num">([^<]*)</td>', cells)))
        ev = [e for e in summary["evals"] if e["stage"] == stage and e["suite"] == suite]
        check(len(ev) == 1, f"summary.json has no single {stage}/{suite}")
        verdicts = read_jsonl(ev[0]["jsonl"])
        k = int(values["k"])
        hand = hand_numbers(verdicts, k)
        check(int(values["tasks"]) == hand["tasks"], f"{stage}/{suite} tasks")
        check(int(values["samples"]) == hand["samples"], f"{stage}/{suite} samples")
        for key, col in (("pass@1", "pass@1"), ("pass@k", "pass@k"), ("valid", "valid"),
                         ("correct", "correct"), ("invalid_syntax", "invalid_syntax"),
                         ("invalid_functionality", "invalid_functionality"),
                         ("incorrect", "incorrect"), ("correct", "correct_share")):
            check(values[col] == f"{hand[key]:.3f}",
                  f"{stage}/{suite} {col}: report {values[col]}, by hand {hand[key]:.3f}")
            check(abs(hand[key] - ev[0][{"pass@1": "pass_at_1", "pass@k": "pass_at_k",
                                          "valid": "valid_rate", "correct": "correct_rate",
                                          "invalid_syntax": "invalid_syntax_share",
                                          "invalid_functionality": "invalid_functionality_share",
                                          "incorrect": "incorrect_share"}.get(key, "correct_rate")])
                  < 1e-9, f"{stage}/{suite} {key}: summary.json differs from the JSONL")
        check(values["fast1"] == "n/a", "fast1 shown without timing")
        seen.add((stage, suite))
    check(seen == {(s, t) for s in ("base", "sft", "grpo") for t in ("heldout", "level1")}
          | {(s, "heldout") for s in grpo_stages[1:]},
          f"rows {sorted(seen)}")

    # The page opens with the paired comparisons: each one's before and after are the means over
    # tasks of the per-task shares recomputed from the two evaluations' JSONL, and its interval
    # holds its difference.
    check(html.find('<table id="paired">') < html.find('id="notes"'), "the paired table comes first")
    comps = summary["comparisons"]
    check(len(comps) == len(re.findall(r'<tr data-suite="\w+" data-from=', html)),
          "one paired row per comparison")

    def per_task(stage, suite, metric):
        ev = [e for e in summary["evals"] if e["stage"] == stage and e["suite"] == suite][0]
        by_task = {}
        for v in read_jsonl(ev["jsonl"]):
            ok = v["valid"] if metric == "valid" else (v["correct"] and "weak_task" not in v["flags"])
            n, c = by_task.get(v["task"], (0, 0))
            by_task[v["task"]] = (n + 1, c + int(bool(ok)))
        return sum(c / n for n, c in by_task.values()) / len(by_task)

    check({(c["suite"], c["from"], c["to"]) for c in comps if c["metric"] == "pass@1"}
          >= {(t, "base", "sft") for t in ("heldout", "level1")} | {(t, "sft", "grpo") for t in ("heldout", "level1")},
          "comparisons base -> sft and sft -> grpo on both task sets")
    for c in comps:
        for side, stage in (("before", c["from"]), ("after", c["to"])):
            hand = per_task(stage, c["suite"], c["metric"])
            check(abs(c[side] - hand) < 1e-9, f"paired {c}: {side} {c[side]}, by hand {hand}")
        check(c["low"] <= c["difference"] <= c["high"], f"paired {c}: interval misses its estimate")

    # A failing stage names itself and keeps the earlier stages' outputs.
    out2 = tempfile.mkdtemp(prefix="tritonrl_demo_fail_")
    p = subprocess.run([BIN, "demo", "--quick", "--no-verify-synth", "--out", out2, "--suite",
                        SUITE, "--model", os.path.join(out2, "no_such_model")],
                       capture_output=True, text=True, timeout=300)
    check(p.returncode != 0, "a missing model did not fail the demo")
    check("stage base-eval" in p.stderr, f"the error does not name the stage: {p.stderr[-500:]}")
    for kept in ("synth/train/manifest.jsonl", "synth/sft_train.jsonl", "eval/summary.json"):
        check(os.path.isfile(os.path.join(out2, kept)), f"earlier output {kept} was not kept")
    check(not os.path.exists(os.path.join(out2, "report.html")), "a failed demo wrote a report")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out2, ignore_errors=True)
    print("ok")


main()
