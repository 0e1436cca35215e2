"""The SFT trainer against an independent PyTorch Qwen3 (the fp32 reference
of test_model_reference.py, written from the architecture) and through the
CLI: loss and gradients on the same random weights and batch; a checkpoint
that reloads to the reference's logits; builtin:tiny learning the suite's SFT
records; a stopped and resumed run equal to an uninterrupted one; corrupt
checkpoints, other data and bad JSONL refused. The speed options are on by
default; the runs that test the reference-order path say so with PLAIN."""

import json
import os
import struct
import subprocess

import numpy as np
import pytest
import torch

import test_model_reference as ref
from sft_suite_data import records as suite_records

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.path.join(BUILD, "tritonrl")
PARITY = os.path.join(BUILD, "train_parity")
LOGITS = os.path.join(BUILD, "model_parity")

pytestmark = pytest.mark.skipif(not os.path.exists(PARITY), reason="the trainer is built only with libtorch")

# Relative error (per tensor, L2) allowed between our gradients and the reference's.
GRAD_RTOL = 1e-4


SAFETENSORS_DTYPES = {"F32": torch.float32, "BF16": torch.bfloat16}


def read_safetensors_typed(path):
    """name -> (dtype string, tensor), read byte by byte as the format's spec lays it out."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        t = torch.frombuffer(bytearray(data[b:e]), dtype=SAFETENSORS_DTYPES[info["dtype"]])
        out[name] = (info["dtype"], t.reshape(info["shape"]))
    return out


def read_safetensors(path):
    """name -> tensor of a file that must hold fp32 tensors only."""
    out = {}
    for name, (dtype, t) in read_safetensors_typed(path).items():
        assert dtype == "F32", name
        out[name] = t
    return out


def reference_loss(w, rows, score_from, cfg):
    total, n = 0.0, 0
    for ids, start in zip(rows, score_from):
        logp = ref.reference_logits(w, ids, cfg).log_softmax(-1)
        for t in range(max(start - 1, 0), len(ids) - 1):
            total = total - logp[t, ids[t + 1]]
            n += 1
    return total / n, n


# "plain": the reference-order forward; "fused": train sft's speed options, its
# default (--fused-norm, --fused-proj, --rope-roll, --loss-chunk) on the same weights and batch.
@pytest.mark.parametrize("kernels", ["plain", "fused"])
def test_loss_and_gradients_match_independent_reference(tmp_path, kernels):
    w = ref.make_weights(seed=4)
    ref.write_checkpoint(tmp_path, w, [[1]])
    rows = [[3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7], [250, 251, 7, 8, 299, 0, 12]]
    score_from = [5, 2]
    (tmp_path / "batch.json").write_text(json.dumps({"rows": rows, "score_from": score_from}))
    r = subprocess.run([PARITY, "--model", str(tmp_path), "--batch", str(tmp_path / "batch.json"),
                        "--out", str(tmp_path / "grads.safetensors"), "--kernels", kernels],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ours = json.loads(r.stdout)
    grads = read_safetensors(tmp_path / "grads.safetensors")

    wr = {k: v.clone().requires_grad_(True) for k, v in w.items()}
    loss, n = reference_loss(wr, rows, score_from, ref.CFG)
    loss.backward()
    assert ours["scored"] == n
    assert abs(ours["loss"] - loss.item()) <= 1e-5 * abs(loss.item())

    c = ref.CFG
    q, kv, inter = c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"], \
        c["intermediate_size"]
    # Our fused tensors against the reference's separate ones.
    expect = {"embed": wr["model.embed_tokens.weight"].grad, "lm_head": wr["lm_head.weight"].grad,
              "final_norm": wr["model.norm.weight"].grad}
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        g = lambda name: wr[p + name].grad
        expect[f"layers.{l}.input_norm"] = g("input_layernorm.weight")
        expect[f"layers.{l}.post_norm"] = g("post_attention_layernorm.weight")
        expect[f"layers.{l}.qkv_proj"] = torch.cat([g("self_attn.q_proj.weight"), g("self_attn.k_proj.weight"),
                                                    g("self_attn.v_proj.weight")])
        expect[f"layers.{l}.o_proj"] = g("self_attn.o_proj.weight")
        expect[f"layers.{l}.q_norm"] = g("self_attn.q_norm.weight")
        expect[f"layers.{l}.k_norm"] = g("self_attn.k_norm.weight")
        expect[f"layers.{l}.gate_up_proj"] = torch.cat([g("mlp.gate_proj.weight"), g("mlp.up_proj.weight")])
        expect[f"layers.{l}.down_proj"] = g("mlp.down_proj.weight")
    assert set(grads) == set(expect)
    assert grads["layers.0.qkv_proj"].shape == (q + 2 * kv, c["hidden_size"])
    assert grads["layers.1.gate_up_proj"].shape == (2 * inter, c["hidden_size"])
    worst = 0.0
    for name, g in expect.items():
        assert g.norm() > 0, name  # every tensor gets a gradient worth comparing
        rel = ((grads[name] - g).norm() / g.norm()).item()
        worst = max(worst, rel)
        assert rel <= GRAD_RTOL, (name, rel)
    print(f"worst relative gradient error {worst:.2e}")


def write_jsonl(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def suite(tmp_path):
    recs = suite_records(os.path.join(ROOT, "tasks"))
    assert len(recs) >= 40
    # The 28 shortest prompts (they fit --max-tokens; completions are cut there).
    recs = sorted(recs, key=lambda r: (len(r["prompt"]), r["id"]))[:28]
    train, held = [r for i, r in enumerate(recs) if i % 7], recs[::7]
    write_jsonl(tmp_path / "train.jsonl", train)
    write_jsonl(tmp_path / "eval.jsonl", held)
    return tmp_path / "train.jsonl", tmp_path / "eval.jsonl"


def train(*args, check=True):
    r = subprocess.run([TRITONRL, "train", "sft", "--device", "cpu", "--no-progress", *map(str, args)],
                       capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def metrics(out):
    lines = [json.loads(l) for l in open(os.path.join(out, "metrics.jsonl"))]
    return [l for l in lines if "loss" in l], [l for l in lines if "eval_loss" in l]


# Small enough for a shared 2-core CI machine: byte tokens, prompts cut to fit.
COMMON = ["--model", "builtin:tiny", "--max-tokens", 1280, "--batch-tokens", 5120, "--lr", 3e-3,
          "--warmup", 3, "--seed", 1]
# Every speed option off: the reference-order path (the default before issue 19's measurement).
PLAIN = ["--no-fused-adamw", "--loss-chunk", 0, "--no-fused-norm", "--no-fused-proj", "--no-rope-roll"]
# Every speed option on, with chunks small enough that a batch has several.
SPEED = ["--fused-adamw", "--fused-norm", "--fused-proj", "--rope-roll", "--loss-chunk", 64]
# What train sft does with no speed flag (docs/train.md "Speed options").
DEFAULTS = ["--fused-adamw", "--fused-norm", "--fused-proj", "--rope-roll", "--loss-chunk", 4096]


def test_phase_timing_splits_each_step(tmp_path):
    # --phase-timing: each step's line says where its time went, phase by phase.
    data, _ = suite(tmp_path)
    out = tmp_path / "run"
    train(*COMMON, "--data", data, "--steps", 3, "--phase-timing", "--out", out)
    steps, _ = metrics(out)
    assert len(steps) == 3
    for s in steps:
        ph = s["phase_ms"]
        assert set(ph) == {"batch", "forward", "head", "head_backward", "backward", "clip",
                           "optimizer"}, ph
        assert all(v >= 0 for v in ph.values()) and ph["forward"] > 0 and ph["backward"] > 0, ph
        step_ms = s["tokens"] / s["tokens_per_s"] * 1000  # the step's own clock
        assert sum(ph.values()) <= step_ms * 1.01 + 1, (ph, step_ms)
    plain = tmp_path / "plain"
    train(*COMMON, "--data", data, "--steps", 1, "--out", plain, "--no-save")
    assert "phase_ms" not in metrics(plain)[0][0]
    assert not (plain / "checkpoint").exists()  # --no-save


def test_tiny_learns_suite_records_and_checkpoint_reloads(tmp_path):
    data, held = suite(tmp_path)
    out = tmp_path / "run"
    train(*COMMON, "--data", data, "--eval-data", held, "--steps", 30, "--eval-every", 15,
          "--keep-best", "--out", out)
    steps, evals = metrics(out)
    assert [s["step"] for s in steps] == list(range(1, 31))
    first, last = np.mean([s["loss"] for s in steps[:3]]), np.mean([s["loss"] for s in steps[-3:]])
    assert last < 0.8 * first, (first, last)
    assert [e["step"] for e in evals] == [15, 30]
    assert evals[1]["eval_loss"] < evals[0]["eval_loss"] < steps[0]["loss"]
    # --keep-best: each evaluation that lowered the held-out loss was saved to OUT/best; the last
    # one did, so OUT/best holds step 30's weights, the same bytes as OUT/checkpoint.
    assert [e.get("best") for e in evals] == [True, True]
    best = json.load(open(out / "best" / "trainer_state.json"))
    assert best["best_step"] == 30 and best["best_eval_loss"] == evals[1]["eval_loss"]
    assert (out / "best" / "model.safetensors").read_bytes() == \
        (out / "checkpoint" / "model.safetensors").read_bytes()
    for s in steps:
        assert s["lr"] > 0 and s["grad_norm"] > 0 and s["tokens_per_s"] > 0

    # The checkpoint in Hugging Face layout gives the reference's logits.
    ck = out / "checkpoint"
    cfg = json.load(open(ck / "config.json"))
    assert cfg["model_type"] == "qwen3" and cfg["tie_word_embeddings"] is True
    w = read_safetensors(ck / "model.safetensors")
    w["lm_head.weight"] = w["model.embed_tokens.weight"]
    tok = json.load(open(ck / "tokenizer.json"))
    assert tok["model"]["type"] == "BPE" and any(a["content"] == "<|im_end|>" for a in tok["added_tokens"])
    ids = [[60, 124, 257, 10, 100, 101, 102, 103, 32, 33, 260, 259, 5, 6]]
    (tmp_path / "ids.json").write_text(json.dumps({"ids": ids}))
    subprocess.run([LOGITS, "logits", "--model", str(ck), "--ids", str(tmp_path / "ids.json"),
                    "--out", str(tmp_path / "l.f32"), "--device", "cpu"], check=True, capture_output=True)
    mine = np.fromfile(tmp_path / "l.f32", dtype=np.float32).reshape(len(ids[0]), -1)
    with torch.no_grad():
        expect = ref.reference_logits(w, ids[0], cfg).numpy()
    assert np.abs(expect).max() > 0.5
    np.testing.assert_allclose(mine, expect, atol=2e-5, rtol=0)


def test_stopped_and_resumed_run_equals_uninterrupted(tmp_path):
    # The reference-order path (PLAIN); test_speed_options_... resumes the fast one. The speed
    # options are not in the checkpoint, so the resumed run is given them again.
    data, _ = suite(tmp_path)
    full, part = tmp_path / "full", tmp_path / "part"
    args = [*COMMON, *PLAIN, "--data", data, "--steps", 8, "--grad-accum", 2]
    train(*args, "--out", full)
    train(*args, "--out", part, "--stop-after", 3)
    assert len(metrics(part)[0]) == 3
    train("--data", data, "--out", part, "--resume", part / "checkpoint", *PLAIN)
    a, b = metrics(full)[0], metrics(part)[0]
    assert [s["step"] for s in b] == list(range(1, 9))
    # Bit-identical on the CPU: the same floats, not merely close ones.
    assert [(s["loss"], s["grad_norm"], s["lr"]) for s in a] == [(s["loss"], s["grad_norm"], s["lr"]) for s in b]
    assert (full / "checkpoint" / "model.safetensors").read_bytes() == \
        (part / "checkpoint" / "model.safetensors").read_bytes()


def test_speed_options_train_the_same_and_resume_exactly(tmp_path):
    # The speed options change rounding only: on the CPU in fp32 the same
    # trajectory to ~1e-5; they are not part of the checkpoint, so a resumed
    # run given them again continues bit-identically.
    data, held = suite(tmp_path)
    plain, fast, part = tmp_path / "plain", tmp_path / "fast", tmp_path / "part"
    args = [*COMMON, "--data", data, "--eval-data", held, "--steps", 6]
    train(*args, *PLAIN, "--out", plain)
    train(*args, *SPEED, "--out", fast)
    a, b = metrics(plain)[0], metrics(fast)[0]
    np.testing.assert_allclose([s["loss"] for s in b], [s["loss"] for s in a], rtol=1e-4)
    np.testing.assert_allclose([s["grad_norm"] for s in b], [s["grad_norm"] for s in a], rtol=1e-3)
    assert b[-1]["loss"] < b[0]["loss"]
    # The held-out loss goes through the chunked head too.
    np.testing.assert_allclose(metrics(fast)[1][-1]["eval_loss"], metrics(plain)[1][-1]["eval_loss"], rtol=1e-4)
    train(*args, *SPEED, "--out", part, "--stop-after", 3)
    train("--data", data, "--out", part, "--resume", part / "checkpoint", *SPEED)
    c = metrics(part)[0]
    assert [(s["loss"], s["grad_norm"]) for s in c] == [(s["loss"], s["grad_norm"]) for s in b]
    assert (fast / "checkpoint" / "model.safetensors").read_bytes() == \
        (part / "checkpoint" / "model.safetensors").read_bytes()


def test_speed_options_are_the_default_and_each_can_be_turned_off(tmp_path):
    # No speed flag: the same run bit for bit as every speed option given (--loss-chunk 4096);
    # the --no-... flags (--loss-chunk 0) give the reference-order path, a different rounding.
    data, _ = suite(tmp_path)
    args = [*COMMON, "--data", data, "--steps", 2]
    runs = {"default": [], "explicit": DEFAULTS, "plain": PLAIN}
    for name, flags in runs.items():
        train(*args, *flags, "--out", tmp_path / name)
    weights = {name: (tmp_path / name / "checkpoint" / "model.safetensors").read_bytes() for name in runs}
    losses = {name: [(s["loss"], s["grad_norm"]) for s in metrics(tmp_path / name)[0]] for name in runs}
    assert losses["default"] == losses["explicit"] and weights["default"] == weights["explicit"]
    assert weights["plain"] != weights["default"]
    np.testing.assert_allclose([l for l, _ in losses["plain"]], [l for l, _ in losses["default"]], rtol=1e-4)
    # A later flag wins: --no-fused-norm then --fused-norm is the default again.
    train(*args, "--no-fused-norm", "--fused-norm", "--out", tmp_path / "twice")
    assert (tmp_path / "twice" / "checkpoint" / "model.safetensors").read_bytes() == weights["default"]
    # The help says so.
    r = subprocess.run([TRITONRL, "train", "sft", "--help"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for flag in ("--no-fused-adamw", "--no-fused-norm", "--no-fused-proj", "--no-rope-roll"):
        assert flag in r.stdout, flag
    assert "default on" in r.stdout and "4096" in r.stdout


def test_corrupt_or_mismatched_checkpoint_and_bad_data_are_refused(tmp_path):
    data, held = suite(tmp_path)
    out = tmp_path / "run"
    train(*COMMON, "--data", data, "--steps", 1, "--out", out)
    ck = out / "checkpoint"
    # Resuming on other data cannot be exact: refused.
    r = train("--data", held, "--out", out, "--resume", ck, check=False)
    assert r.returncode == 2 and "other data" in r.stderr, r.stderr
    # A flipped byte in the optimizer state.
    opt = bytearray((ck / "optimizer.safetensors").read_bytes())
    opt[-5] ^= 1
    (ck / "optimizer.safetensors").write_bytes(bytes(opt))
    r = train("--data", data, "--out", out, "--resume", ck, check=False)
    assert r.returncode == 2 and "optimizer.safetensors: corrupt" in r.stderr, r.stderr
    # A bad JSONL line names file and line.
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "a", "completion": "b"}\n{"prompt": "a"}\n')
    r = train(*COMMON, "--data", bad, "--out", tmp_path / "x", check=False)
    assert r.returncode == 2 and f"{bad}:2:" in r.stderr and "completion" in r.stderr, r.stderr
    # --keep-best without held-out data has nothing to keep by.
    r = train(*COMMON, "--data", data, "--out", tmp_path / "y", "--keep-best", check=False)
    assert r.returncode == 2 and "--keep-best needs --eval-data" in r.stderr, r.stderr
