"""Python side of bench/train/sft_bench.sh (H200).

  assets WORK T RECORDS      random Qwen3-0.6B-shaped model (fp32 safetensors, tied
                             head), a byte-level tokenizer.json and RECORDS SFT
                             records that each fill T tokens (prompt ~1/4)
  baseline WORK B T STEPS    a plain PyTorch training loop of the same shape:
                             transformers' Qwen3ForCausalLM when importable, else
                             the independent Qwen3 below; fp32 master weights,
                             bf16 autocast, AdamW, clipping, loss on the
                             completion positions (labels -100 on the prompt)
  ours WORK [RUN [LABEL]]    summary of `tritonrl train sft`'s RUN/metrics.jsonl
                             (RUN: WORK/ours by default)
  phases RUN                 median phase split (--phase-timing) of RUN/metrics.jsonl
Each prints one line (JSON, or the phase split as text)."""

import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

CFG = dict(model_type="qwen3", architectures=["Qwen3ForCausalLM"], vocab_size=151936, hidden_size=1024,
           intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8,
           head_dim=128, rms_norm_eps=1e-6, rope_theta=1000000.0, max_position_embeddings=40960,
           tie_word_embeddings=True, attention_bias=False, torch_dtype="float32",
           bos_token_id=151643, eos_token_id=151645)
PROMPT_FRACTION = 0.25


def byte_map():
    """GPT-2's printable code point for each byte."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def assets(work, T, records):
    from safetensors.torch import save_file
    model = os.path.join(work, "model")
    os.makedirs(model, exist_ok=True)
    g = torch.Generator().manual_seed(0)
    c = CFG
    h, q, kv, i = c["hidden_size"], c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"], c["intermediate_size"]
    w = {"model.embed_tokens.weight": torch.randn(c["vocab_size"], h, generator=g) * 0.02,
         "model.norm.weight": torch.ones(h)}
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        for name, shape in [("self_attn.q_proj.weight", (q, h)), ("self_attn.k_proj.weight", (kv, h)),
                            ("self_attn.v_proj.weight", (kv, h)), ("self_attn.o_proj.weight", (h, q)),
                            ("mlp.gate_proj.weight", (i, h)), ("mlp.up_proj.weight", (i, h)),
                            ("mlp.down_proj.weight", (h, i))]:
            w[p + name] = torch.randn(*shape, generator=g) * 0.02
        for name, n in [("input_layernorm.weight", h), ("post_attention_layernorm.weight", h),
                        ("self_attn.q_norm.weight", c["head_dim"]), ("self_attn.k_norm.weight", c["head_dim"])]:
            w[p + name] = torch.ones(n)
    save_file(w, os.path.join(model, "model.safetensors"), metadata={"format": "pt"})
    json.dump(CFG, open(os.path.join(model, "config.json"), "w"))
    bm = byte_map()
    vocab = {bm[b]: b for b in range(256)}
    added = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]
    tok = {"version": "1.0", "added_tokens": [{"id": 256 + k, "content": a, "special": k < 3, "single_word": False,
                                                "lstrip": False, "rstrip": False, "normalized": False}
                                               for k, a in enumerate(added)],
           "normalizer": None,
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
           "decoder": {"type": "ByteLevel"},
           "model": {"type": "BPE", "vocab": vocab, "merges": []}}
    json.dump(tok, open(os.path.join(model, "tokenizer.json"), "w"))
    # Byte tokens: a prompt of P bytes and a completion that overflows T (cut there).
    P = int(T * PROMPT_FRACTION)
    with open(os.path.join(work, "bench.jsonl"), "w") as f:
        for r in range(records):
            body = f"def kernel_{r}(x):\n    return x * {r}\n"
            f.write(json.dumps({"prompt": (body * (P // len(body) + 1))[:P - 40],
                                "completion": (body * (T // len(body) + 2))}) + "\n")
    print(json.dumps({"model": model, "records": records, "T": T}))


class RefQwen3(torch.nn.Module):
    """Independent batched Qwen3 (RMSNorm, q/k norm, RoPE, GQA, SwiGLU, tied head)."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        h, d = c["hidden_size"], c["head_dim"]
        self.embed = torch.nn.Embedding(c["vocab_size"], h)
        L = torch.nn.Linear
        self.layers = torch.nn.ModuleList()
        for _ in range(c["num_hidden_layers"]):
            m = torch.nn.Module()
            m.q, m.k = L(h, c["num_attention_heads"] * d, bias=False), L(h, c["num_key_value_heads"] * d, bias=False)
            m.v, m.o = L(h, c["num_key_value_heads"] * d, bias=False), L(c["num_attention_heads"] * d, h, bias=False)
            m.gate, m.up = L(h, c["intermediate_size"], bias=False), L(h, c["intermediate_size"], bias=False)
            m.down = L(c["intermediate_size"], h, bias=False)
            m.n1, m.n2 = torch.nn.RMSNorm(h, eps=c["rms_norm_eps"]), torch.nn.RMSNorm(h, eps=c["rms_norm_eps"])
            m.qn, m.kn = torch.nn.RMSNorm(d, eps=c["rms_norm_eps"]), torch.nn.RMSNorm(d, eps=c["rms_norm_eps"])
            self.layers.append(m)
        self.norm = torch.nn.RMSNorm(h, eps=c["rms_norm_eps"])

    def forward(self, ids):
        c, (B, T) = self.c, ids.shape
        d, nh, nkv = c["head_dim"], c["num_attention_heads"], c["num_key_value_heads"]
        inv = 1.0 / (c["rope_theta"] ** (torch.arange(0, d, 2, device=ids.device).float() / d))
        ang = torch.outer(torch.arange(T, device=ids.device).float(), inv)
        cos, sin = torch.cat([ang, ang], -1).cos(), torch.cat([ang, ang], -1).sin()

        def rope(x):
            x1, x2 = x[..., : d // 2], x[..., d // 2:]
            return x * cos + torch.cat([-x2, x1], -1) * sin

        x = self.embed(ids)
        for m in self.layers:
            a = m.n1(x)
            q = rope(m.qn(m.q(a).view(B, T, nh, d)).transpose(1, 2))
            k = rope(m.kn(m.k(a).view(B, T, nkv, d)).transpose(1, 2))
            v = m.v(a).view(B, T, nkv, d).transpose(1, 2)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            x = x + m.o(o.transpose(1, 2).reshape(B, T, nh * d))
            b = m.n2(x)
            x = x + m.down(F.silu(m.gate(b)) * m.up(b))
        return F.linear(self.norm(x), self.embed.weight)


def baseline(work, B, T, steps):
    dev = torch.device("cuda")
    try:
        from transformers import Qwen3Config, Qwen3ForCausalLM
        cfg = Qwen3Config(**{k: v for k, v in CFG.items() if k not in ("model_type", "architectures")})
        cfg._attn_implementation = "sdpa"
        model = Qwen3ForCausalLM(cfg).to(dev)
        impl = "transformers Qwen3ForCausalLM (sdpa)"
        forward = lambda ids: model(input_ids=ids).logits
    except ImportError:
        model = RefQwen3(CFG).to(dev)
        impl = "independent plain-PyTorch Qwen3 (transformers missing)"
        forward = model
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.95), weight_decay=0.1)
    g = torch.Generator(device="cpu").manual_seed(0)
    ids = torch.randint(0, 256, (B, T), generator=g).to(dev)
    labels = ids.clone()
    labels[:, : int(T * PROMPT_FRACTION)] = -100
    times = []
    torch.cuda.reset_peak_memory_stats()
    for s in range(steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = forward(ids)
        loss = F.cross_entropy(logits[:, :-1].float().reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1),
                               ignore_index=-100)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    steady = times[3:] if len(times) > 5 else times
    print(json.dumps({"impl": impl, "B": B, "T": T, "steps": steps,
                      "tokens_per_s": B * T / statistics.median(steady),
                      "step_s_median": statistics.median(steady),
                      "peak_allocated_gib": torch.cuda.max_memory_allocated() / 2**30,
                      "last_loss": loss.item()}))


def ours(work, run=None, label="tritonrl train sft"):
    rows = [json.loads(l) for l in open(os.path.join(run or os.path.join(work, "ours"), "metrics.jsonl"))]
    steps = [r for r in rows if "loss" in r]
    steady = steps[3:] if len(steps) > 5 else steps
    tps = statistics.median(r["tokens_per_s"] for r in steady)
    print(json.dumps({"impl": label, "steps": len(steps), "tokens_per_s": tps,
                      "tokens_per_step": steps[-1]["tokens"], "last_loss": steps[-1]["loss"],
                      "finite": all(math.isfinite(r["loss"]) for r in steps)}))


# The order a step runs its phases in (train sft --phase-timing).
PHASES = ["batch", "forward", "head", "head_backward", "backward", "allreduce", "clip", "optimizer"]


def phases(run):
    steps = [json.loads(l) for l in open(os.path.join(run, "metrics.jsonl")) if '"phase_ms"' in l]
    steady = steps[3:] if len(steps) > 4 else steps  # after warm-up
    keys = [k for k in PHASES if any(k in s["phase_ms"] for s in steady)]
    keys += sorted({k for s in steady for k in s["phase_ms"]} - set(keys))
    med = {k: statistics.median(s["phase_ms"].get(k, 0) for s in steady) for k in keys}
    print("median ms per step (%d steps after warm-up): " % len(steady)
          + ", ".join("%s %.1f" % (k, med[k]) for k in keys) + "; sum %.1f" % sum(med.values()))


if __name__ == "__main__":
    cmd, work = sys.argv[1], sys.argv[2]
    if cmd == "assets":
        assets(work, int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "baseline":
        baseline(work, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "ours":
        ours(work, *sys.argv[3:5])
    elif cmd == "phases":
        phases(work)
