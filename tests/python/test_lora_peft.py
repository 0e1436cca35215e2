"""LoRA (issue 38) against PEFT itself: `train sft --lora-r` on builtin:tiny writes a PEFT
adapter; PEFT loads it on the transformers Qwen3 of the written base and must give the same
logits (fp32 2e-5) and, on the same batch, the same adapter gradients (relative L2 error per
tensor 1e-4, as test_train_sft.py's full-model gradients); `tritonrl lora merge` must equal
base + adapter; a run stopped and resumed must equal the uninterrupted one, byte for byte,
with LoRA dropout on. CPU, fp32."""
import json
import os
import subprocess

import numpy as np
import peft  # pinned in python/requirements.txt: a missing PEFT fails, never skips
import pytest
import torch
import transformers

from test_train_sft import read_safetensors

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.path.join(BUILD, "tritonrl")
PARITY = os.path.join(BUILD, "train_parity")
LOGITS = os.path.join(BUILD, "model_parity")

TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
PATHS = {"q_proj": "self_attn", "k_proj": "self_attn", "v_proj": "self_attn", "o_proj": "self_attn",
         "gate_proj": "mlp", "up_proj": "mlp", "down_proj": "mlp"}


def write_data(path, n=12):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"prompt": f"add {i} and {i + 3}",
                                "completion": f"<think>sum</think> the answer is {2 * i + 3}"}) + "\n")


def train(tmp, out, *extra, lr="2e-2"):
    cmd = [TRITONRL, "train", "sft", "--data", str(tmp / "data.jsonl"), "--out", str(out),
           "--no-progress", "--batch-tokens", "256", "--warmup", "0", "--lr", lr, *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def adapter(tmp_path_factory):
    """A builtin:tiny adapter after 3 steps (B no longer zero), targets all seven projections."""
    tmp = tmp_path_factory.mktemp("lora")
    write_data(tmp / "data.jsonl")
    train(tmp, tmp / "run", "--model", "builtin:tiny", "--steps", "3", "--lora-r", "4",
          "--lora-alpha", "8", "--seed", "5")
    return tmp, tmp / "run" / "checkpoint"


def peft_model(ckpt, trainable=False):
    cfg = json.loads((ckpt / "adapter_config.json").read_text())
    base = transformers.AutoModelForCausalLM.from_pretrained(cfg["base_model_name_or_path"],
                                                             dtype=torch.float32)
    return peft.PeftModel.from_pretrained(base, str(ckpt), is_trainable=trainable)


def batch_rows():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (n,), generator=g).tolist() for n in (11, 7)]


def our_logits(tmp, model_dir, rows):
    ids = tmp / "ids.json"
    ids.write_text(json.dumps({"ids": rows}))
    out = tmp / "logits.f32"
    r = subprocess.run([LOGITS, "logits", "--model", str(model_dir), "--ids", str(ids), "--out",
                        str(out), "--dtype", "fp32", "--device", "cpu"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    flat = np.fromfile(out, dtype="<f4")
    res, at = [], 0
    for row in rows:
        n = len(row) * 272
        res.append(torch.from_numpy(flat[at:at + n].copy()).reshape(len(row), 272))
        at += n
    return res


def test_layout_is_peft(adapter):
    _, ckpt = adapter
    cfg = json.loads((ckpt / "adapter_config.json").read_text())
    assert cfg["peft_type"] == "LORA" and cfg["r"] == 4 and cfg["lora_alpha"] == 8
    assert sorted(cfg["target_modules"]) == sorted(TARGETS)
    keys = set(read_safetensors(ckpt / "adapter_model.safetensors"))
    want = {f"base_model.model.model.layers.{l}.{PATHS[t]}.{t}.lora_{m}.weight"
            for l in range(2) for t in TARGETS for m in "AB"}
    assert keys == want
    # PEFT's own state dict of the loaded model has exactly these keys and values.
    sd = peft.get_peft_model_state_dict(peft_model(ckpt))
    ours = read_safetensors(ckpt / "adapter_model.safetensors")
    assert set(sd) == want
    for k in want:
        assert torch.equal(sd[k], ours[k]), k
    assert any(ours[k].abs().max() > 0 for k in want if "lora_B" in k)  # trained, not the init


def test_init_is_peft_kaiming_uniform(tmp_path):
    """A fresh adapter: B zero, A within PEFT's kaiming-uniform bound 1/sqrt(in) and spread over it."""
    write_data(tmp_path / "data.jsonl")
    train(tmp_path, tmp_path / "run", "--model", "builtin:tiny", "--steps", "1",
          "--lora-r", "8", "--lora-targets", "q_proj,down_proj", lr="0")
    w = read_safetensors(tmp_path / "run" / "checkpoint" / "adapter_model.safetensors")
    assert len(w) == 8
    for k, v in w.items():
        if "lora_B" in k:
            assert torch.count_nonzero(v) == 0, k
        else:
            bound = 1 / v.shape[1] ** 0.5
            assert v.abs().max() <= bound and v.abs().max() > 0.9 * bound, k
            assert abs(v.std().item() - bound / 3 ** 0.5) < 0.25 * bound / 3 ** 0.5, k


@pytest.mark.skipif(not os.path.exists(LOGITS), reason="model_parity is built only with libtorch")
def test_logits_equal_peft(adapter):
    tmp, ckpt = adapter
    rows = batch_rows()
    ours = our_logits(tmp, ckpt, rows)
    model = peft_model(ckpt).eval()
    with torch.no_grad():
        for row, mine in zip(rows, ours):
            theirs = model(torch.tensor([row])).logits[0]
            assert (theirs - mine).abs().max().item() < 2e-5
    base = transformers.AutoModelForCausalLM.from_pretrained(
        json.loads((ckpt / "adapter_config.json").read_text())["base_model_name_or_path"],
        dtype=torch.float32)
    with torch.no_grad():  # the adapter changes the output: the check above is not the base's
        assert (base(torch.tensor([rows[0]])).logits[0] - ours[0]).abs().max().item() > 1e-3


@pytest.mark.skipif(not os.path.exists(PARITY), reason="train_parity is built only with libtorch")
def test_gradients_equal_peft(adapter):
    tmp, ckpt = adapter
    rows = batch_rows()
    score_from = [4, 3]
    (tmp / "batch.json").write_text(json.dumps({"rows": rows, "score_from": score_from}))
    r = subprocess.run([PARITY, "--model", str(ckpt), "--batch", str(tmp / "batch.json"), "--out",
                        str(tmp / "grads.safetensors")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ours = json.loads(r.stdout)
    grads = read_safetensors(tmp / "grads.safetensors")
    model = peft_model(ckpt, trainable=True)
    model.train()
    for name, p in model.named_parameters():
        assert p.requires_grad == ("lora_" in name), name
    logps = []
    for row, s in zip(rows, score_from):
        logits = model(torch.tensor([row])).logits[0]
        lp = torch.log_softmax(logits.float(), -1)
        t = torch.arange(max(s - 1, 0), len(row) - 1)
        logps.append(lp[t, torch.tensor(row)[t + 1]])
    loss = -torch.cat(logps).mean()
    loss.backward()
    assert abs(loss.item() - ours["loss"]) < 1e-5
    params = dict(model.named_parameters())
    assert len(grads) == 2 * 2 * len(TARGETS)
    for name, g in grads.items():
        layer, target, mat = name.split(".")[1], name.split(".")[2], name.split(".")[3]
        key = f"base_model.model.model.layers.{layer}.{PATHS[target]}.{target}.{mat}.default.weight"
        ref = params[key].grad
        err = ((g - ref).norm() / ref.norm()).item()
        assert err < 1e-4, (name, err)


@pytest.mark.skipif(not os.path.exists(LOGITS), reason="model_parity is built only with libtorch")
def test_merged_equals_adapter(adapter):
    tmp, ckpt = adapter
    merged = tmp / "merged"
    r = subprocess.run([TRITONRL, "lora", "merge", "--adapter", str(ckpt), "--out", str(merged)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = batch_rows()
    ours = our_logits(tmp, merged, rows)
    model = transformers.AutoModelForCausalLM.from_pretrained(str(merged), dtype=torch.float32)
    ref = peft_model(ckpt).merge_and_unload()
    with torch.no_grad():
        for row, mine in zip(rows, ours):
            theirs = model(torch.tensor([row])).logits[0]
            assert (theirs - mine).abs().max().item() < 2e-5
            assert (theirs - ref(torch.tensor([row])).logits[0]).abs().max().item() < 2e-5
    # The merged weights are PEFT's merge_and_unload weights.
    sd = ref.state_dict()
    w = read_safetensors(merged / "model.safetensors")
    for k, v in w.items():
        assert torch.allclose(v, sd[k], atol=1e-6, rtol=0), k


def test_resume_equals_uninterrupted(tmp_path):
    write_data(tmp_path / "data.jsonl")
    common = ["--model", "builtin:tiny", "--steps", "4", "--lora-r", "4", "--lora-alpha", "16",
              "--lora-dropout", "0.1", "--lora-targets", "attention"]
    train(tmp_path, tmp_path / "full", *common)
    train(tmp_path, tmp_path / "part", *common, "--stop-after", "2")
    train(tmp_path, tmp_path / "part", "--resume", str(tmp_path / "part" / "checkpoint"))
    for f in ("adapter_model.safetensors", "optimizer.safetensors"):
        a = (tmp_path / "full" / "checkpoint" / f).read_bytes()
        b = (tmp_path / "part" / "checkpoint" / f).read_bytes()
        assert a == b, f
    losses = lambda d: [(j["step"], j["loss"], j["grad_norm"]) for j in map(
        json.loads, (d / "metrics.jsonl").read_text().splitlines()) if "loss" in j]
    assert losses(tmp_path / "full") == losses(tmp_path / "part")
    # Dropout is on (the equality above is not that of a dropout-free run): without it, other adapters.
    train(tmp_path, tmp_path / "other", *[f if f != "0.1" else "0" for f in common])
    assert ((tmp_path / "other" / "checkpoint" / "adapter_model.safetensors").read_bytes() !=
            (tmp_path / "full" / "checkpoint" / "adapter_model.safetensors").read_bytes())


def test_refusals(tmp_path):
    write_data(tmp_path / "data.jsonl")
    for flags, words in ((["--lora-r", "4", "--lora-targets", "qproj"], "--lora-targets"),
                         (["--lora-r", "4", "--lora-dropout", "1.5"], "dropout")):
        r = subprocess.run([TRITONRL, "train", "sft", "--model", "builtin:tiny", "--data",
                            str(tmp_path / "data.jsonl"), "--out", str(tmp_path / "o"), "--steps", "1",
                            "--no-progress", *flags], capture_output=True, text=True)
        assert r.returncode == 2 and words in r.stderr, (flags, r.stderr)
