"""`tritonrl train grpo` on the CPU through the CLI: builtin:tiny on the built-in
suite (level 1), G=2, one task per step, a few new tokens. The random policy
writes garbage that the static verifier rejects; the run must still log every
metric, write its rollouts and a checkpoint. A run stopped after step 1 and
resumed equals an uninterrupted one (numbers, timings aside). With the TEST-ONLY
solution injection a group has one correct and one rejected rollout, so the
advantages are +-1/sqrt(2)/... by hand and the update really moves the weights.
DAPO dynamic sampling (--max-sample-rounds): on a two-task suite where one task's injected
solution is broken, a step whose first group is constant samples a second round from the task
order; the counts in the metrics follow the rollouts, and a stopped and resumed run with
resampling equals an uninterrupted one. Bad --levels, a missing task folder and a corrupt
checkpoint are refused."""

import json
import math
import os
import re
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

# Hugging Face files beside the weights (test_checkpoint_transformers.py loads them).
SIDE_FILES = ("tokenizer_config.json", "generation_config.json", "special_tokens_map.json")
TIMING = {"gen_seconds", "score_seconds", "update_seconds", "gen_tokens_per_second", "elapsed_s"}
FIELDS = {"step", "reward_correct", "reward_speedup", "valid_rate", "compiled_rate", "correct_rate",
          "fast1_rate", "mean_speedup", "response_tokens", "entropy", "clip_fraction", "kl",
          "gen_tokens_per_second", "gen_seconds", "score_seconds", "update_seconds", "truncated",
          "filtered_groups", "share_invalid_syntax", "share_invalid_functionality",
          "share_incorrect", "share_correct_not_fast", "share_fast", "sampled_groups",
          "informative_groups", "rounds"}


def grpo(out, *extra, check=True, tasks=TASKS, env=None):
    cmd = [TRITONRL, "train", "grpo", "--model", "builtin:tiny", "--tasks", tasks, "--out", str(out),
           "--group", "2", "--tasks-per-step", "1", "--max-new-tokens", "12", "--device", "cpu",
           "--eval-device", "cpu", "--jobs", "1", "--lr", "1e-3", "--seed", "5", "--no-progress",
           *extra]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=500, env=env)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def without_timings(rows):
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def test_tiny_run_logs_every_metric_and_resumes_exactly(tmp_path):
    full = tmp_path / "full"
    grpo(full, "--steps", "3")
    rows = read_jsonl(full / "metrics.jsonl")
    assert [r["step"] for r in rows] == [1, 2, 3]
    for r in rows:
        assert FIELDS <= set(r), FIELDS - set(r)
        shares = sum(r[k] for k in r if k.startswith("share_"))
        assert math.isclose(shares, 1.0)
        assert r["response_tokens"] > 0 and r["entropy"] > 0
        assert r["truncated"] <= 2
    assert all(r["rounds"] == 1 and r["sampled_groups"] == 1 for r in rows)  # no resampling
    rollouts = read_jsonl(full / "rollouts.jsonl")
    assert len(rollouts) == 6
    assert all(r["task"].startswith("level1/") and r["prompt"] for r in rollouts)
    assert all(r["correct"] is False for r in rollouts)
    ckpt = full / "checkpoint"
    for name in ("config.json", "model.safetensors", "tokenizer.json", "optimizer.safetensors",
                 "trainer_state.json", *SIDE_FILES):
        assert (ckpt / name).exists(), name
    state = json.loads((ckpt / "trainer_state.json").read_text())
    assert state["trainer"] == "grpo" and state["step"] == 3
    assert state["options"]["timing_trials"] == 100  # a trajectory option, kept for the resume

    part = tmp_path / "part"
    grpo(part, "--steps", "3", "--stop-after", "1")
    assert len(read_jsonl(part / "metrics.jsonl")) == 1
    grpo(part, "--resume", str(part / "checkpoint"))
    assert without_timings(read_jsonl(part / "metrics.jsonl")) == without_timings(rows)
    assert read_jsonl(part / "rollouts.jsonl") == rollouts
    assert (part / "checkpoint" / "model.safetensors").read_bytes() == \
        (ckpt / "model.safetensors").read_bytes()
    for name in SIDE_FILES:  # the resumed run carries the checkpoint's Hugging Face files
        assert (part / "checkpoint" / name).read_bytes() == (ckpt / name).read_bytes(), name


def test_warmup_and_cosine_schedule_by_hand_and_resume_exactly(tmp_path):
    """The learning rate of each step (linear warm-up over 2 steps, then cosine to 0.1 x lr at the
    last step) by hand, on a run whose every step updates (injected solutions); stopped after
    step 2 and resumed, it equals the uninterrupted run: metrics, rollouts and weights' bytes."""
    args = ("--steps", "4", "--test-inject-solutions", "--warmup-steps", "2", "--lr-schedule",
            "cosine", "--min-lr-ratio", "0.1", "--adam-beta2", "0.99")  # grpo() gives --lr 1e-3
    full = tmp_path / "full"
    grpo(full, *args)
    rows = read_jsonl(full / "metrics.jsonl")
    # Warm-up (step + 1) / 2, then 0.1 + 0.9 * (1 + cos(pi * (step - 2) / 2)) / 2 for steps 2, 3.
    want = [0.5e-3, 1e-3, 1e-3, (0.1 + 0.9 * 0.5) * 1e-3]
    assert [r["lr"] for r in rows] == pytest.approx(want, rel=1e-12)
    assert all(r["updated"] for r in rows)
    part = tmp_path / "part"
    grpo(part, *args, "--stop-after", "2")
    grpo(part, "--resume", str(part / "checkpoint"))
    assert without_timings(read_jsonl(part / "metrics.jsonl")) == without_timings(rows)
    assert read_jsonl(part / "rollouts.jsonl") == read_jsonl(full / "rollouts.jsonl")
    assert (part / "checkpoint" / "model.safetensors").read_bytes() == \
        (full / "checkpoint" / "model.safetensors").read_bytes()


def test_injected_solution_gives_a_real_update(tmp_path):
    out = tmp_path / "inject"
    grpo(out, "--steps", "1", "--levels", "1:1", "--test-inject-solutions", "--mode", "binary")
    [row] = read_jsonl(out / "metrics.jsonl")
    good, bad = read_jsonl(out / "rollouts.jsonl")
    assert good["injected"] and good["correct"], good["outcome"]
    assert not bad["correct"]
    assert row["correct_rate"] == 0.5 and row["reward_correct"] == 0.5
    assert row["filtered_groups"] == 0 and row["updated"] is True
    # Binary rewards [1, 0]: mean 0.5, sample sd sqrt(0.5): advantages +-0.5 / (sqrt(0.5) + 1e-6).
    a = 0.5 / (math.sqrt(0.5) + 1e-6)
    assert math.isclose(good["adv_code"], a, rel_tol=1e-9)
    assert math.isclose(bad["adv_code"], -a, rel_tol=1e-9)
    # On-policy: the first update's ratios are 1 (nothing clipped), the loss is -mean(A) over tokens.
    assert row["clip_fraction"] == 0
    n_good, n_bad = good["tokens"], bad["tokens"]
    assert row["loss_tokens"] == n_good + n_bad
    assert math.isclose(row["loss"], -(a * n_good - a * n_bad) / (n_good + n_bad), rel_tol=1e-4)
    assert row["grad_norm"] > 0


def test_kept_idle_workers_change_no_verdict_and_leave_nothing_behind(tmp_path):
    # Scoring's pre-started workers kept between steps (--keep-idle-workers): the same rollouts,
    # rewards and updates as a run whose workers each step starts afresh, and when the run ends its
    # idle workers are gone with their folders.
    def run(out, *flags):
        work = tmp_path / (out + "_tmp")  # the scorer's workers' folders go under TMPDIR
        work.mkdir()
        grpo(tmp_path / out, "--steps", "2", "--levels", "1:1", "--test-inject-solutions", "--mode",
             "binary", *flags, env={**os.environ, "TMPDIR": str(work)})
        return work

    run("fresh", "--prestart-workers", "0")
    work = run("kept", "--keep-idle-workers")
    fresh, kept = (read_jsonl(tmp_path / d / "rollouts.jsonl") for d in ("fresh", "kept"))
    assert kept == fresh
    assert any(r["correct"] for r in kept)  # workers ran
    assert without_timings(read_jsonl(tmp_path / "kept" / "metrics.jsonl")) == \
        without_timings(read_jsonl(tmp_path / "fresh" / "metrics.jsonl"))
    assert list(work.rglob("w-*")) == []


def test_micro_batches_and_loss_chunks_leave_the_update_unchanged(tmp_path):
    """The same step with the update in one micro-batch and the head in one chunk (the
    defaults), one rollout per micro-batch (--update-batch-tokens 2), whole-batch logits
    (--loss-chunk 0) and one-token chunks: the loss, the gradient norm (before clipping), the
    entropy, KL and clip fraction agree to fp32 rounding. The gradients themselves are compared
    tensor by tensor in grpo_tests (GrpoLeanUpdate.*)."""
    args = ("--steps", "1", "--test-inject-solutions", "--mode", "binary")
    variants = {"default": (), "micro": ("--update-batch-tokens", "2"),
                "whole_logits": ("--loss-chunk", "0"),
                "micro_chunk1": ("--update-batch-tokens", "2", "--loss-chunk", "1")}
    rows = {}
    for name, extra in variants.items():
        grpo(tmp_path / name, *args, *extra)
        [rows[name]] = read_jsonl(tmp_path / name / "metrics.jsonl")
    ref = rows["default"]
    assert ref["updated"] is True and ref["grad_norm"] > 0 and ref["loss"] != 0
    for name, row in rows.items():
        assert row["loss_tokens"] == ref["loss_tokens"], name
        for key in ("loss", "grad_norm", "entropy", "kl", "clip_fraction"):
            assert math.isclose(row[key], ref[key], rel_tol=1e-5, abs_tol=1e-7), (name, key)
    r = grpo(tmp_path / "bad", "--loss-chunk", "-1", check=False)
    assert r.returncode != 0 and "--loss-chunk" in r.stderr


def test_refusals_name_the_flag_or_file(tmp_path):
    r = grpo(tmp_path / "a", "--levels", "1:x", check=False)
    assert r.returncode != 0 and "--levels" in r.stderr
    r = grpo(tmp_path / "b", tasks=str(tmp_path / "nowhere"), check=False)
    assert r.returncode != 0 and "nowhere" in r.stderr
    r = grpo(tmp_path / "c", "--off-policy", "2", check=False)
    assert r.returncode != 0 and "--off-policy" in r.stderr
    r = grpo(tmp_path / "c2", "--timing-trials", "3", check=False)
    assert r.returncode != 0 and "--timing-trials" in r.stderr
    out = tmp_path / "d"
    grpo(out, "--steps", "1")
    ckpt = out / "checkpoint"
    bad = tmp_path / "bad"
    shutil.copytree(ckpt, bad)
    with open(bad / "optimizer.safetensors", "r+b") as f:
        f.seek(100)
        f.write(b"\x7f\x7f\x7f\x7f")
    r = grpo(tmp_path / "e", "--resume", str(bad), check=False)
    assert r.returncode != 0 and "optimizer.safetensors" in r.stderr


def test_off_policy_updates_with_stale_ratios_and_resumes_exactly(tmp_path):
    args = ("--steps", "2", "--off-policy", "1", "--test-inject-solutions", "--mode", "binary")
    full = tmp_path / "full"
    grpo(full, *args)
    rows = read_jsonl(full / "metrics.jsonl")
    assert [r["updated"] for r in rows] == [True, True]
    # Step 2's rollouts were sampled before update 1: the policy moved since, so the k3 estimate
    # of KL(current || behaviour) is positive (on-policy it is 0 up to rounding, as in step 1).
    assert rows[1]["kl"] > 1e-6 > abs(rows[0]["kl"])
    part = tmp_path / "part"
    grpo(part, *args, "--stop-after", "1")
    state = json.loads((part / "checkpoint" / "trainer_state.json").read_text())
    assert state["pending"]["step"] == 2  # the next step's rollouts travel with the checkpoint
    grpo(part, "--resume", str(part / "checkpoint"))
    assert without_timings(read_jsonl(part / "metrics.jsonl")) == without_timings(rows)
    assert (part / "checkpoint" / "model.safetensors").read_bytes() == \
        (full / "checkpoint" / "model.safetensors").read_bytes()


def two_task_suite(tmp_path):
    """ReLU with its real solution, Sigmoid with a broken one: with injected solutions a ReLU
    group is informative (one correct, one garbage rollout), a Sigmoid group constant."""
    suite = tmp_path / "suite"
    (suite / "level1").mkdir(parents=True)
    (suite / "solutions" / "level1").mkdir(parents=True)
    for name in ("1_ReLU", "8_Sigmoid"):
        shutil.copy(os.path.join(TASKS, "level1", name + ".py"), suite / "level1")
    shutil.copy(os.path.join(TASKS, "solutions", "level1", "1_ReLU.py"),
                suite / "solutions" / "level1")
    (suite / "solutions" / "level1" / "8_Sigmoid.py").write_text("not a kernel\n")
    return str(suite)


def test_dynamic_sampling_resamples_constant_groups_and_resumes_exactly(tmp_path):
    suite = two_task_suite(tmp_path)
    args = ("--steps", "4", "--max-sample-rounds", "2", "--test-inject-solutions", "--mode",
            "binary")
    full = tmp_path / "full"
    grpo(full, *args, tasks=suite)
    rows = read_jsonl(full / "metrics.jsonl")
    rollouts = read_jsonl(full / "rollouts.jsonl")
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    draws = []  # the tasks in the order they were drawn, over steps and rounds
    for row in rows:
        mine = [r for r in rollouts if r["step"] == row["step"]]
        groups = {}
        for r in mine:
            groups.setdefault((r["round"], r["group"]), []).append(r)
        order = sorted(groups)
        assert [g for _, g in order] == list(range(len(order)))  # groups count on over rounds
        first_task = groups[order[0]][0]["task"]
        # A ReLU group is informative: the step stops after round 1. A Sigmoid one is constant:
        # a second round draws one more task.
        want_rounds = 1 if first_task == "level1/1_ReLU" else 2
        assert row["rounds"] == want_rounds and [rd for rd, _ in order] == list(
            range(1, want_rounds + 1)), (row, order)
        informative = [g for g in groups.values() if g[0]["task"] == "level1/1_ReLU"]
        assert row["sampled_groups"] == len(groups) == want_rounds
        assert row["informative_groups"] == len(informative)
        assert row["filtered_groups"] == row["constant_groups"] == len(groups) - len(informative)
        for g in groups.values():
            assert len(g) == 2 and all(r["filtered"] == (g[0]["task"] != "level1/1_ReLU")
                                       for r in g)
        # Only the informative groups carry the loss; the metrics are over every rollout.
        assert row["loss_tokens"] == sum(r["tokens"] for g in informative for r in g)
        assert row["updated"] is (len(informative) > 0)
        assert math.isclose(row["correct_rate"], len(informative) / (2 * len(groups)))
        draws += [groups[k][0]["task"] for k in order]
    assert any(r["rounds"] == 2 for r in rows), "no step needed a second round"
    # Further rounds draw from the same task order: each epoch of the two-task pool holds both.
    for i in range(0, len(draws) - 1, 2):
        assert sorted(draws[i:i + 2]) == ["level1/1_ReLU", "level1/8_Sigmoid"], draws

    part = tmp_path / "part"
    grpo(part, *args, "--stop-after", "2", tasks=suite)
    assert len(read_jsonl(part / "metrics.jsonl")) == 2
    grpo(part, "--resume", str(part / "checkpoint"), tasks=suite)
    assert without_timings(read_jsonl(part / "metrics.jsonl")) == without_timings(rows)
    assert read_jsonl(part / "rollouts.jsonl") == rollouts
    assert (part / "checkpoint" / "model.safetensors").read_bytes() == \
        (full / "checkpoint" / "model.safetensors").read_bytes()


def test_difficulty_labels_steer_the_task_mixture(tmp_path):
    """Labels from a calibration pass (tritonrl calibrate) give each task a level, which --levels
    mixes: with Sigmoid labelled out of reach (level 2) and the default mixture (level 1 only),
    every group is a ReLU group; the labels file beside the tasks is read by default, and
    --labels none goes back to the folder's levels. A bad labels file names its line."""
    suite = two_task_suite(tmp_path)
    labels = os.path.join(suite, "labels.jsonl")
    with open(labels, "w") as f:
        f.write(json.dumps({"task": "level1/1_ReLU", "level": 1, "samples": 8, "passed": 3}) + "\n")
        f.write(json.dumps({"task": "level1/8_Sigmoid", "level": 2, "samples": 8, "passed": 0}) + "\n")
    grpo(tmp_path / "labelled", "--steps", "3", tasks=suite)
    tasks = {r["task"] for r in read_jsonl(tmp_path / "labelled" / "rollouts.jsonl")}
    assert tasks == {"level1/1_ReLU"}, tasks
    grpo(tmp_path / "both", "--steps", "3", "--levels", "1:1,2:1", tasks=suite)
    tasks = {r["task"] for r in read_jsonl(tmp_path / "both" / "rollouts.jsonl")}
    assert tasks == {"level1/1_ReLU", "level1/8_Sigmoid"}, tasks
    grpo(tmp_path / "unlabelled", "--steps", "2", "--labels", "none", tasks=suite)
    tasks = {r["task"] for r in read_jsonl(tmp_path / "unlabelled" / "rollouts.jsonl")}
    assert tasks == {"level1/1_ReLU", "level1/8_Sigmoid"}, tasks
    with open(labels, "a") as f:
        f.write("{\"task\": \"level1/1_ReLU\"}\n")
    r = grpo(tmp_path / "bad", "--steps", "1", tasks=suite, check=False)
    assert r.returncode == 2 and f"{labels}:3:" in r.stderr, r.stderr


def test_calibrate_labels_every_task_by_its_pass_rate(tmp_path):
    """`tritonrl calibrate` samples k outputs per task, scores them and writes one label per task;
    the random tiny policy solves nothing, so every task is out of reach (level 2)."""
    suite = two_task_suite(tmp_path)
    out = tmp_path / "cal" / "labels.jsonl"
    r = subprocess.run([TRITONRL, "calibrate", "--model", "builtin:tiny", "--tasks", suite, "--k", "2",
                        "--max-new-tokens", "12", "--device", "cpu", "--jobs", "1", "--out", str(out)],
                       capture_output=True, text=True, timeout=500)
    assert r.returncode == 0, r.stderr
    labels = read_jsonl(out)
    assert [(l["task"], l["samples"], l["passed"], l["level"]) for l in labels] == [
        ("level1/1_ReLU", 2, 0, 2), ("level1/8_Sigmoid", 2, 0, 2)]
    assert "0 within reach" in r.stderr, r.stderr


def test_warm_references_runs_beside_training(tmp_path):
    """--warm-references on: the scorer computes the drawn tasks' references ahead (no candidate,
    no verdict stored), training runs as it does without, and auto leaves the CPU alone."""
    suite = tmp_path / "suite" / "level1"
    suite.mkdir(parents=True)
    for name in ("1_ReLU.py", "11_LeakyReLU.py"):
        shutil.copy(os.path.join(TASKS, "level1", name), suite / name)
    r = grpo(tmp_path / "on", "--steps", "2", "--warm-references", "on",
             tasks=str(tmp_path / "suite"))
    m = re.search(r"references of (\d+) of (\d+) tasks computed ahead in [\d.]+ s \((\d+) kept "
                  r"already, (\d+) failed\)", r.stderr)
    assert m, r.stderr
    computed, tasks, kept, failed = map(int, m.groups())
    # Both tasks were asked for; the run may end before the warm-up reaches the second (it stops
    # with the run), and a step may have kept one first.
    assert tasks == 2 and failed == 0 and 1 <= computed + kept <= 2, m.group(0)
    assert len(read_jsonl(tmp_path / "on" / "metrics.jsonl")) == 2
    r = grpo(tmp_path / "auto", "--steps", "1", tasks=str(tmp_path / "suite"))
    assert "computed ahead" not in r.stderr, r.stderr
    r = grpo(tmp_path / "bad", "--steps", "1", "--warm-references", "sometimes", check=False)
    assert r.returncode != 0 and "warm-references" in r.stderr, r.stderr
