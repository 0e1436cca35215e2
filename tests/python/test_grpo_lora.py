"""LoRA in `train grpo` (issue 38), on the CPU through the CLI, builtin:tiny, no scorer: the
TEST-ONLY injected solution is the one rollout whose plan matches --text-reward-plan, so every
group is informative and every step updates. Checked:
- GRPO continuing a `train sft --lora-r` adapter changes only the adapters: the base's files keep
  their bytes, the merged model differs from the base in the targeted projections only, and the
  checkpoint is a PEFT adapter on the same base;
- the rollouts are sampled from the current adapter: the sampler's log-probabilities are the
  update's (ratio 1, nothing clipped, k3 to the behaviour policy 0 at every step), and after the
  adapter moved the rollouts differ from those of the same run at learning rate 0;
- `generate` on the adapter (unmerged) equals `generate` on its `lora merge`, greedy;
- a run stopped and resumed equals the uninterrupted one byte for byte (adapters, optimizer
  state, metrics without timings, rollouts), with a KL term to the starting adapters (fresh, or
  the adapter given as --model: then its k3 is 0 at step 1);
- --checkpoint-layers with LoRA gives the run without it, in SFT (with dropout) and in GRPO;
- `train sft` continues an adapter given as --model too;
- refusals: dropout in GRPO, flags that contradict the adapter given as --model."""
import hashlib
import json
import os
import subprocess

import pytest
import torch

from test_train_sft import read_safetensors

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.path.join(BUILD, "tritonrl")
TASKS = os.path.join(ROOT, "tasks")
TIMING = {"gen_seconds", "score_seconds", "update_seconds", "gen_tokens_per_second", "elapsed_s"}

pytestmark = pytest.mark.skipif(
    subprocess.run([TRITONRL, "train", "grpo", "--help"], capture_output=True).returncode != 0,
    reason="the trainer is built only with libtorch")


def run(*args, check=True):
    r = subprocess.run([TRITONRL, *args], capture_output=True, text=True, timeout=300)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def grpo(out, *extra, check=True):
    # The injected solution's plan says "reference"; the policy's own rollouts almost never do.
    return run("train", "grpo", "--tasks", TASKS, "--out", str(out), "--group", "2",
               "--tasks-per-step", "1", "--max-new-tokens", "12", "--device", "cpu", "--seed", "5",
               "--no-progress", "--test-inject-solutions", "--text-reward-plan", "reference",
               "--mode", "binary", *extra, check=check)


def sft(tmp, out, *extra):
    data = tmp / "data.jsonl"
    if not data.exists():
        with open(data, "w") as f:
            for i in range(12):
                f.write(json.dumps({"prompt": f"add {i} and {i + 3}",
                                    "completion": f"<think>sum</think> {2 * i + 3}"}) + "\n")
    return run("train", "sft", "--data", str(data), "--out", str(out), "--no-progress",
               "--batch-tokens", "256", "--warmup", "0", "--lr", "2e-2", *extra)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def without_timings(rows):
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def digests(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def sft_adapter(tmp_path_factory):
    """A builtin:tiny adapter on the attention projections after 3 SFT steps (with dropout,
    which GRPO does not take over)."""
    tmp = tmp_path_factory.mktemp("grpo_lora")
    sft(tmp, tmp / "sft", "--model", "builtin:tiny", "--steps", "3", "--lora-r", "4",
        "--lora-alpha", "8", "--lora-dropout", "0.1", "--lora-targets", "attention", "--seed", "3")
    return tmp, tmp / "sft" / "checkpoint"


@pytest.fixture(scope="module")
def continued(sft_adapter):
    """GRPO continuing that adapter for 3 steps, and the same run at learning rate 0."""
    tmp, adapter = sft_adapter
    base = tmp / "sft" / "base"
    before = digests(base)
    grpo(tmp / "grpo", "--model", str(adapter), "--steps", "3", "--lr", "5e-2")
    grpo(tmp / "frozen", "--model", str(adapter), "--steps", "3", "--lr", "0")
    run("lora", "merge", "--adapter", str(tmp / "grpo" / "checkpoint"), "--out", str(tmp / "merged"))
    return tmp, adapter, base, before


def test_continuing_an_adapter_changes_only_the_adapters(continued):
    tmp, adapter, base, before = continued
    ckpt = tmp / "grpo" / "checkpoint"
    assert digests(base) == before  # the frozen base's files keep their bytes
    assert not (ckpt / "model.safetensors").exists() and not (tmp / "grpo" / "base").exists()
    cfg = json.loads((ckpt / "adapter_config.json").read_text())
    was = json.loads((adapter / "adapter_config.json").read_text())
    assert cfg["base_model_name_or_path"] == was["base_model_name_or_path"] == str(base)
    assert (cfg["r"], cfg["lora_alpha"], sorted(cfg["target_modules"])) == \
        (4, 8, ["k_proj", "o_proj", "q_proj", "v_proj"])
    assert cfg["lora_dropout"] == 0  # GRPO trains without dropout
    state = json.loads((ckpt / "trainer_state.json").read_text())
    assert state["options"]["lora_r"] == 4 and state["options"]["lora_targets"] == \
        "q_proj,k_proj,v_proj,o_proj"
    ours, start = (read_safetensors(d / "adapter_model.safetensors") for d in (ckpt, adapter))
    assert set(ours) == set(start) and len(ours) == 2 * 4 * 2
    assert all(not torch.equal(ours[k], start[k]) for k in ours)  # every adapter tensor moved
    # Merged, the model differs from the base exactly in the targeted projections.
    merged = read_safetensors(tmp / "merged" / "model.safetensors")
    frozen = read_safetensors(base / "model.safetensors")
    assert set(merged) == set(frozen)
    for name, w in merged.items():
        targeted = any(f"self_attn.{t}." in name for t in ("q_proj", "k_proj", "v_proj", "o_proj"))
        assert torch.equal(w, frozen[name]) != targeted, name


def test_rollouts_are_sampled_from_the_current_adapter(continued):
    tmp, _, _, _ = continued
    rows = read_jsonl(tmp / "grpo" / "metrics.jsonl")
    assert all(r["updated"] and r["grad_norm"] > 0 for r in rows)
    # On-policy, one update a step: the update's log-probabilities (base + adapter) are the
    # sampler's, so no ratio leaves 1 and the k3 estimate to the behaviour policy is 0.
    assert all(r["clip_fraction"] == 0 and abs(r["kl"]) < 1e-6 for r in rows)
    moved = read_jsonl(tmp / "grpo" / "rollouts.jsonl")
    still = read_jsonl(tmp / "frozen" / "rollouts.jsonl")
    policy = lambda rows, step: [r["response"] for r in rows if r["step"] == step and
                                 not r["injected"]]
    # Step 1 samples from the SFT adapter in both runs (same seed); once the adapter moved, the
    # same seeds sample other responses.
    assert policy(moved, 1) == policy(still, 1)
    assert policy(moved, 3) != policy(still, 3)


def test_generate_on_the_adapter_equals_the_merged_model(continued):
    tmp, _, base, _ = continued
    outs = []
    for model in (tmp / "grpo" / "checkpoint", tmp / "merged", base):
        r = run("generate", "--model", str(model), "--prompt", "add 2 and 5", "--chat",
                "--temperature", "0", "--max-new-tokens", "16", "--device", "cpu")
        [line] = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
        outs.append(line)
    adapter, merged, frozen = outs
    # Greedy: the same tokens; their log-probabilities up to the merge's rounding (fp32).
    assert adapter["tokens"] == merged["tokens"] and len(adapter["tokens"]) == 16
    assert max(abs(a - b) for a, b in zip(adapter["logprobs"], merged["logprobs"])) < 1e-4
    # ... and not those of the base alone: generate runs the adapter.
    n = min(len(adapter["logprobs"]), len(frozen["logprobs"]))
    assert adapter["tokens"] != frozen["tokens"] or max(
        abs(a - b) for a, b in zip(adapter["logprobs"][:n], frozen["logprobs"][:n])) > 1e-3


def test_resume_equals_uninterrupted(tmp_path):
    args = ("--model", "builtin:tiny", "--steps", "3", "--lr", "5e-2", "--lora-r", "4",
            "--lora-targets", "q_proj,v_proj,down_proj", "--kl", "0.05")
    grpo(tmp_path / "full", *args)
    grpo(tmp_path / "part", *args, "--stop-after", "1")
    grpo(tmp_path / "part", "--resume", str(tmp_path / "part" / "checkpoint"))
    full, part = tmp_path / "full" / "checkpoint", tmp_path / "part" / "checkpoint"
    for name in ("adapter_model.safetensors", "optimizer.safetensors"):
        assert (full / name).read_bytes() == (part / name).read_bytes(), name
    config = lambda d: {k: v for k, v in json.loads((d / "adapter_config.json").read_text()).items()
                        if k != "base_model_name_or_path"}  # each run's own OUT/base
    assert config(full) == config(part)
    rows = read_jsonl(tmp_path / "full" / "metrics.jsonl")
    assert without_timings(read_jsonl(tmp_path / "part" / "metrics.jsonl")) == without_timings(rows)
    assert read_jsonl(tmp_path / "part" / "rollouts.jsonl") == \
        read_jsonl(tmp_path / "full" / "rollouts.jsonl")
    # The KL term is live (the adapters moved from their start) and a fresh builtin run wrote its
    # base once, to OUT/base, which the adapter references.
    assert rows[-1]["kl"] > 1e-6
    cfg = json.loads((full / "adapter_config.json").read_text())
    assert cfg["base_model_name_or_path"] == str(tmp_path / "full" / "base")


def test_kl_reference_is_the_adapter_given_and_resumes_exactly(sft_adapter, tmp_path):
    """Continuing an adapter with a KL term: the reference is that adapter on its base (k3 0 at
    step 1, where the policy still is the adapter; a fresh adapter's B = 0 would be the base),
    read again on resume."""
    _, adapter = sft_adapter
    args = ("--model", str(adapter), "--steps", "3", "--lr", "5e-2", "--kl", "0.05")
    grpo(tmp_path / "full", *args)
    grpo(tmp_path / "part", *args, "--stop-after", "1")
    grpo(tmp_path / "part", "--resume", str(tmp_path / "part" / "checkpoint"))
    rows = read_jsonl(tmp_path / "full" / "metrics.jsonl")
    assert abs(rows[0]["kl"]) < 1e-6 < rows[2]["kl"]
    assert without_timings(read_jsonl(tmp_path / "part" / "metrics.jsonl")) == without_timings(rows)
    for name in ("adapter_model.safetensors", "optimizer.safetensors"):
        assert (tmp_path / "full" / "checkpoint" / name).read_bytes() == \
            (tmp_path / "part" / "checkpoint" / name).read_bytes(), name


def test_checkpoint_layers_with_lora_equal_the_plain_run(tmp_path):
    sft_args = ("--model", "builtin:tiny", "--steps", "3", "--lora-r", "4", "--lora-dropout", "0.2",
                "--seed", "2")
    sft(tmp_path, tmp_path / "sft_plain", *sft_args)
    sft(tmp_path, tmp_path / "sft_ck", *sft_args, "--checkpoint-layers")
    grpo_args = ("--model", "builtin:tiny", "--steps", "2", "--lr", "5e-2", "--lora-r", "4")
    grpo(tmp_path / "grpo_plain", *grpo_args)
    grpo(tmp_path / "grpo_ck", *grpo_args, "--checkpoint-layers")
    for plain, ck in (("sft_plain", "sft_ck"), ("grpo_plain", "grpo_ck")):
        a, b = tmp_path / plain, tmp_path / ck
        for name in ("adapter_model.safetensors", "optimizer.safetensors"):
            assert (a / "checkpoint" / name).read_bytes() == (b / "checkpoint" / name).read_bytes()
        losses = lambda d: [(r["step"], r["loss"], r["grad_norm"])
                            for r in read_jsonl(d / "metrics.jsonl") if "loss" in r]
        assert losses(a) == losses(b) and losses(a)


def test_sft_continues_an_adapter(sft_adapter, tmp_path):
    """`train sft --model ADAPTER` trains that adapter further (same base, r, alpha, targets)."""
    tmp, adapter = sft_adapter
    before = digests(tmp / "sft" / "base")
    sft(tmp, tmp_path / "more", "--model", str(adapter), "--steps", "2")
    ckpt = tmp_path / "more" / "checkpoint"
    cfg = json.loads((ckpt / "adapter_config.json").read_text())
    was = json.loads((adapter / "adapter_config.json").read_text())
    for key in ("base_model_name_or_path", "r", "lora_alpha", "target_modules"):
        assert cfg[key] == was[key], key
    assert digests(tmp / "sft" / "base") == before
    ours, start = (read_safetensors(d / "adapter_model.safetensors") for d in (ckpt, adapter))
    assert set(ours) == set(start) and all(not torch.equal(ours[k], start[k]) for k in ours)


def test_refusals(sft_adapter, tmp_path):
    _, adapter = sft_adapter
    r = grpo(tmp_path / "a", "--model", "builtin:tiny", "--lora-r", "4", "--lora-dropout", "0.1",
             check=False)
    assert r.returncode == 2 and "--lora-dropout" in r.stderr, r.stderr
    r = grpo(tmp_path / "b", "--model", str(adapter), "--lora-r", "8", check=False)
    assert r.returncode == 2 and "--lora-r" in r.stderr and "r 4" in r.stderr, r.stderr
    r = grpo(tmp_path / "c", "--model", "builtin:tiny", "--lora-r", "4", "--lora-targets", "x",
             check=False)
    assert r.returncode == 2 and "--lora-targets" in r.stderr, r.stderr
