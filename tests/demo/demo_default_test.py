"""`tritonrl demo` at its default size (the README's main job, as scripts/demo.sh runs it,
on the CPU interpreter) runs every stage to its report: exit 0, the report path printed,
the report file written, an SFT loss that went down, GRPO steps logged, and the six
evaluations (base, SFT, GRPO on the held-out and level-1 sets) in eval/summary.json, each
with its per-sample JSONL. The --quick size is checked in depth by demo_e2e_test.py; this
test is the default size's, which only the README command would otherwise run.

Usage: demo_default_test.py TRITONRL_BINARY SUITE_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BIN, SUITE = sys.argv[1], sys.argv[2]


def check(cond, msg):
    if not cond:
        print("FAIL:", msg)
        sys.exit(1)


def main():
    out = tempfile.mkdtemp(prefix="tritonrl_demo_default_")
    p = subprocess.run([BIN, "demo", "--out", out, "--suite", SUITE], capture_output=True,
                       text=True, timeout=1500)
    print(p.stderr[-3000:])
    print(p.stdout[-3000:])
    check(p.returncode == 0, f"demo exited {p.returncode}")
    report = os.path.join(out, "report.html")
    check(f"report at {report}" in p.stdout, "the demo does not print where the report is")
    check(os.path.getsize(report) > 0, "empty report")

    with open(os.path.join(out, "sft", "metrics.jsonl")) as f:
        losses = [json.loads(line)["loss"] for line in f if '"loss"' in line]
    check(len(losses) >= 2, f"SFT logged {len(losses)} losses")
    check(losses[-1] < losses[0], f"SFT loss did not go down: {losses[0]} -> {losses[-1]}")
    with open(os.path.join(out, "grpo_steps.jsonl")) as f:
        steps = [json.loads(line) for line in f if line.strip()]
    check(len(steps) >= 1 and all("reward_correct" in s for s in steps),
          f"GRPO step log: {steps!r}")

    with open(os.path.join(out, "eval", "summary.json")) as f:
        summary = json.load(f)
    seen = {(e["stage"], e["suite"]) for e in summary["evals"]}
    for stage in ("base", "sft", "grpo"):
        for suite in ("heldout", "level1"):
            check((stage, suite) in seen, f"no {stage} evaluation on {suite}: {sorted(seen)}")
    for e in summary["evals"]:
        check(e["samples"] > 0 and os.path.isfile(e["jsonl"]), f"evaluation without samples: {e}")
    shutil.rmtree(out, ignore_errors=True)
    print("demo default size: ok")


main()
