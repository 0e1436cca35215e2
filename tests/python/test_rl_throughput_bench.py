"""bench/train/rl_throughput.py at toy size on the CPU (plumbing, not speed): builtin:tiny written as
a checkpoint, 2 GRPO steps of `tritonrl train grpo` on-policy and off-policy, and TRL's GRPOTrainer
against a real `tritonrl serve` /v1/reward on the on-policy run's prompts (2 tasks x group 2, 8 new
tokens). The table has the three rows; every stage time is positive; on-policy, a step's wall holds
each of its stages (and about their sum); the JSON carries the per-step split, the totals and the
ratio to TRL, and TRL was given the same prompts as ours, in order."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.environ.get("TRITONRL_BIN", os.path.join(BUILD, "tritonrl"))
SCRIPT = os.path.join(ROOT, "bench", "train", "rl_throughput.py")

pytest.importorskip("trl")
pytestmark = pytest.mark.skipif(
    not os.access(TRITONRL, os.X_OK)
    or subprocess.run([TRITONRL, "train", "grpo", "--help"], capture_output=True).returncode != 0,
    reason="needs tritonrl built with libtorch (train grpo)")

ROWS = ("tritonrl off-policy 0", "tritonrl off-policy 1", "TRL GRPOTrainer")
STEPS, GROUP, TASKS_PER_STEP = 2, 2, 2
EPS = 0.02  # seconds: the parts and the wall are read from different clocks


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("rlbench") / "out"
    r = subprocess.run([sys.executable, SCRIPT, "--model", "builtin:tiny", "--steps", str(STEPS),
                        "--group", str(GROUP), "--tasks-per-step", str(TASKS_PER_STEP), "--max-new-tokens", "8",
                        "--device", "cpu", "--jobs", "1", "--time-limit", "600", "--per-step",
                        "--bin", TRITONRL, "--out", str(out)],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    with open(out / "rl_throughput.json") as f:
        return r.stdout, json.load(f), out


def test_table_has_the_three_runs(bench):
    stdout, doc, _ = bench
    lines = stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("run "))
    for col in ("gen_s", "score_s", "update_s", "wall_s", "overlap_s", "wall/pipe", "rollouts/s", "scored/s",
                "vs TRL"):
        assert col in lines[header]
    body = lines[header + 1:header + 4]
    assert [line[:22].strip() for line in body] == list(ROWS)
    assert body[2].rstrip().endswith("1.00x")  # TRL against itself
    assert doc["table"].splitlines()[0] == lines[header]


def test_times_positive_and_consistent(bench):
    _, doc, _ = bench
    for name in ROWS:
        run = doc["runs"][name]
        assert "error" not in run, run
        steps = run["per_step"]
        assert len(steps) == STEPS
        for s in steps:
            assert s["rollouts"] == GROUP * TASKS_PER_STEP
            for k in ("gen_seconds", "score_seconds", "update_seconds", "wall_seconds", "pipelined_seconds"):
                assert s[k] > 0, (name, s)
        t = run["totals"]
        assert t["steps"] == STEPS and t["rollouts"] == STEPS * GROUP * TASKS_PER_STEP
        assert t["wall_seconds"] == pytest.approx(sum(s["wall_seconds"] for s in steps))
        assert t["rollouts_per_second"] == pytest.approx(t["rollouts"] / t["wall_seconds"])
        assert t["scored_rollouts_per_second"] == pytest.approx(t["rollouts"] / t["score_seconds"])
        assert t["overlap_seconds"] == pytest.approx(
            t["gen_seconds"] + t["score_seconds"] + t["update_seconds"] - t["wall_seconds"])
    # Sequential runs: each stage lies inside its step's wall, and the stages fill it.
    for name in ("tritonrl off-policy 0", "TRL GRPOTrainer"):
        for s in doc["runs"][name]["per_step"]:
            for k in ("gen_seconds", "score_seconds", "update_seconds"):
                assert s["wall_seconds"] >= s[k] - EPS, (name, s)
            assert s["wall_seconds"] >= s["gen_seconds"] + s["score_seconds"] + s["update_seconds"] - EPS
    on = doc["runs"]["tritonrl off-policy 0"]["per_step"]
    assert all(abs(s["overlap_seconds"]) < 0.1 * s["wall_seconds"] + EPS for s in on)
    # Off-policy: step 1's wall holds its own generation and the next step's.
    off = doc["runs"]["tritonrl off-policy 1"]["per_step"]
    assert off[0]["gen_in_wall_seconds"] == pytest.approx(off[0]["gen_seconds"] + off[1]["gen_seconds"])
    assert off[0]["wall_seconds"] >= max(off[0]["gen_in_wall_seconds"], off[0]["score_seconds"]) - EPS
    for name in ROWS[:2]:
        t = doc["runs"][name]["totals"]
        trl = doc["runs"]["TRL GRPOTrainer"]["totals"]
        assert t["rollouts_per_second_over_trl"] == pytest.approx(t["rollouts_per_second"] / trl["rollouts_per_second"])


def test_same_checkpoint_and_prompts(bench):
    _, doc, out = bench
    ckpt = doc["checkpoint"]
    assert os.path.isfile(os.path.join(ckpt, "model.safetensors"))
    cmds = {c["name"]: c["cmd"] for run in doc["runs"].values() for c in [run["command"]]}
    for name in ("ours_offpolicy0", "ours_offpolicy1", "trl"):
        assert cmds[name][cmds[name].index("--model") + 1] == ckpt
    # TRL's prompts: the on-policy run's groups, in order.
    with open(out / "ours_offpolicy0" / "rollouts.jsonl") as f:
        rollouts = [json.loads(line) for line in f if line.strip()]
    with open(out / "prompts.jsonl") as f:
        prompts = [json.loads(line) for line in f if line.strip()]
    assert len(prompts) == STEPS * TASKS_PER_STEP
    assert [(p["task"], p["prompt"]) for p in prompts] == [(r["task"], r["prompt"]) for r in rollouts][::GROUP]
    with open(out / "trl" / "trl_grpo.json") as f:
        trl = json.load(f)
    assert trl["server_exit"] == 0
    assert len(trl["reward_calls"]) == STEPS
    assert all(c["completions"] == GROUP * TASKS_PER_STEP and c["groups"] == TASKS_PER_STEP
               for c in trl["reward_calls"])
