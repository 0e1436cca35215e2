"""GRPO moves a policy towards its reward, independently of the scorer (issue: GRPO that
measurably learns, point 2). The reward is computed from the text alone
(`--text-reward-plan REGEX`: 1 when the plan matches). builtin:tiny is first fine-tuned on
completions whose plan names one of three block sizes with equal frequency; the fine-tuned
policy then writes "BLOCK 1024" in a small share of its plans (measured 0.06-0.09 at these
seeds). GRPO must lift that share to at least 0.8 within STEPS steps and hold it well above the
prior over the second half, once with the reward on every token (binary mode) and once under
HRD, where the reward reaches the plan tokens only (R_speedup; R_correct held at 0, so every code
token's advantage is exactly 0). The same run at learning rate 0 (the control) must stay near the
prior. This checks that the optimizer, the log-probabilities and the masks push the policy
towards the reward. Measured on a 2-core CPU (2026-12-05): binary 0.09 -> 0.81 at step 9 and
0.88 over steps 9-16; HRD 0.09 -> 0.81 at step 6 and 0.76 over steps 9-16; control 0.17."""

import json
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.path.join(BUILD, "tritonrl")
TASKS = os.path.join(ROOT, "tasks")

pytestmark = pytest.mark.skipif(
    subprocess.run([TRITONRL, "train", "grpo", "--help"], capture_output=True).returncode != 0,
    reason="the trainer is built only with libtorch")

CHOICES = ("256", "512", "1024")
TARGET = r"BLOCK 1024"
STEPS = 16  # the stated budget: the share must reach 0.8 within this many steps
TASK_NAMES = ("1_ReLU", "8_Sigmoid", "15_RowMax", "33_Transpose2d")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, " ".join(cmd) + "\n" + r.stderr[-3000:]
    return r


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def sft_policy(tmp_path_factory):
    """A four-task suite, and builtin:tiny fine-tuned on plans that pick each block size
    equally often (the prior GRPO starts from)."""
    tmp = tmp_path_factory.mktemp("textreward")
    suite = tmp / "suite"
    (suite / "level1").mkdir(parents=True)
    (suite / "solutions" / "level1").mkdir(parents=True)
    for name in TASK_NAMES:
        shutil.copy(os.path.join(TASKS, "level1", name + ".py"), suite / "level1")
        shutil.copy(os.path.join(TASKS, "solutions", "level1", name + ".py"),
                    suite / "solutions" / "level1")
    records = tmp / "records.jsonl"
    run([TRITONRL, "data", "sft", "--tasks", str(suite), "--out", str(records)])
    prompts = [r["prompt"] for r in read_jsonl(records)]
    assert len(prompts) == len(TASK_NAMES)
    data = tmp / "plans.jsonl"
    with open(data, "w") as f:
        for _ in range(4):
            for prompt in prompts:
                for c in CHOICES:
                    completion = f"<think>\nUse BLOCK {c}.\n</think>\n\n```python\npass\n```"
                    f.write(json.dumps({"prompt": prompt, "completion": completion}) + "\n")
    sft = tmp / "sft"
    run([TRITONRL, "train", "sft", "--model", "builtin:tiny", "--data", str(data), "--out",
         str(sft), "--device", "cpu", "--epochs", "30", "--lr", "1e-2", "--warmup", "5",
         "--batch-tokens", "16384", "--seed", "3", "--no-progress"])
    return str(suite), str(sft / "checkpoint")


def grpo(suite, model, out, mode, lr):
    run([TRITONRL, "train", "grpo", "--model", model, "--tasks", suite, "--out", str(out),
         "--device", "cpu", "--text-reward-plan", TARGET, "--mode", mode, "--alpha", "0.1",
         "--group", "8", "--tasks-per-step", "4", "--steps", str(STEPS), "--max-new-tokens",
         "40", "--lr", str(lr), "--warmup-steps", "2", "--seed", "11", "--no-progress"])
    return read_jsonl(out / "metrics.jsonl"), read_jsonl(out / "rollouts.jsonl")


def shares(rows):
    return [r["text_reward_rate"] for r in rows]


@pytest.mark.parametrize("mode", ["binary", "hrd"])
def test_text_reward_lifts_the_matching_share_to_0_8(sft_policy, tmp_path, mode):
    suite, model = sft_policy
    rows, rollouts = grpo(suite, model, tmp_path / "run", mode, 5e-4)
    s = shares(rows)
    assert len(s) == STEPS
    # The prior: the fine-tuned policy rarely picks 1024 (it can write it: the share is not 0).
    assert 0 < max(s[:2]) <= 0.35, s
    assert max(s) >= 0.8, s
    second_half = s[STEPS // 2:]
    assert sum(second_half) / len(second_half) >= 0.65, s
    assert all(r["valid_rate"] == 0 for r in rows)  # nothing was scored
    if mode == "hrd":
        # HRD: only the plan carries the reward; the code tokens' advantage is exactly 0.
        assert all(r["adv_code"] == 0 for r in rollouts)
        assert any(r["adv_plan"] != 0 for r in rollouts)


def test_learning_rate_zero_leaves_the_share_at_its_prior(sft_policy, tmp_path):
    suite, model = sft_policy
    rows, _ = grpo(suite, model, tmp_path / "control", "binary", 0)
    s = shares(rows)
    assert max(s) < 0.5 and sum(s) / len(s) <= 0.35, s
