"""Python side of bench/train/sft_bench.sh and bench/train/lora_bench.sh (H200).

  assets WORK T RECORDS      random Qwen3-0.6B-shaped model (fp32 safetensors, tied
                             head) in WORK/model and WORK/bench.jsonl (model + data below)
  model DIR SHAPE [DTYPE [DEVICE]]
                             a random model of SHAPES[SHAPE] (Qwen3's real configurations,
                             and toy ones for the CPU) in DTYPE (float32 | bfloat16) on disk,
                             drawn on DEVICE (cuda: fast), sharded, with a byte-level tokenizer
  data FILE T RECORDS        RECORDS SFT records that each fill T tokens (prompt ~1/4)
  baseline WORK B T STEPS    a plain PyTorch training loop of the same shape:
                             transformers' Qwen3ForCausalLM when importable, else
                             the independent Qwen3 below; fp32 master weights,
                             bf16 autocast, AdamW, clipping, loss on the
                             completion positions (labels -100 on the prompt)
  peft --model DIR ...       PEFT + transformers LoRA training loop (lora_bench.sh part sft)
  ours WORK [RUN [LABEL]]    summary of `tritonrl train sft`'s RUN/metrics.jsonl
                             (RUN: WORK/ours by default)
  phases RUN                 median phase split (--phase-timing) of RUN/metrics.jsonl
  measure --key K ... -- CMD runs CMD with a time limit, records its peak GPU memory (nvidia-smi)
                             and peak RSS, detects an out-of-memory exit, appends one JSON record
                             (with the run's own figures) to a results file (lora_bench.sh)
  done RESULTS KEY           exit 0 when RESULTS holds a finished record of KEY
  tables RESULTS             lora_bench.sh's tables (markdown) from its results file
Each prints one line (JSON, or the phase split as text), except tables."""

import json
import math
import os
import statistics
import sys
import time

if __name__ == "__main__" and sys.argv[1:2] in (["measure"], ["done"], ["tables"]):
    torch = F = None  # lora_bench.sh's bookkeeping needs no torch: a second saved a call
else:
    import torch
    import torch.nn.functional as F

# Qwen3's released configurations (config.json on the Hub: hidden, MLP, layers, query / KV heads of
# head_dim 128, tied head), the one home of these shapes for the GPU benches; "toy" and "toy-wide"
# are CPU sizes for a plumbing run (vocabulary above the byte tokenizer's 261 tokens).
SHAPES = {
    "0.6b": dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
                 num_key_value_heads=8, head_dim=128, vocab_size=151936, tie_word_embeddings=True),
    "1.7b": dict(hidden_size=2048, intermediate_size=6144, num_hidden_layers=28, num_attention_heads=16,
                 num_key_value_heads=8, head_dim=128, vocab_size=151936, tie_word_embeddings=True),
    "4b": dict(hidden_size=2560, intermediate_size=9728, num_hidden_layers=36, num_attention_heads=32,
               num_key_value_heads=8, head_dim=128, vocab_size=151936, tie_word_embeddings=True),
    "8b": dict(hidden_size=4096, intermediate_size=12288, num_hidden_layers=36, num_attention_heads=32,
               num_key_value_heads=8, head_dim=128, vocab_size=151936, tie_word_embeddings=False),
    "toy": dict(hidden_size=64, intermediate_size=192, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, head_dim=16, vocab_size=512, tie_word_embeddings=False),
    "toy-wide": dict(hidden_size=512, intermediate_size=1536, num_hidden_layers=8, num_attention_heads=8,
                     num_key_value_heads=4, head_dim=64, vocab_size=8192, tie_word_embeddings=False),
}


def config(shape, dtype="float32"):
    """config.json of a random model of SHAPES[shape] stored in dtype."""
    return dict(model_type="qwen3", architectures=["Qwen3ForCausalLM"], rms_norm_eps=1e-6,
                rope_theta=1000000.0, max_position_embeddings=40960, attention_bias=False,
                torch_dtype=dtype, bos_token_id=151643, eos_token_id=151645, **SHAPES[shape])


def param_count(shape):
    c = SHAPES[shape]
    h, q, kv, i = c["hidden_size"], c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"], c["intermediate_size"]
    layer = h * (2 * q + 2 * kv) + 3 * h * i + 2 * h + 2 * c["head_dim"]
    return c["vocab_size"] * h * (1 if c["tie_word_embeddings"] else 2) + c["num_hidden_layers"] * layer + h


CFG = config("0.6b")  # sft_bench.sh's model
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


def write_model(model, shape="0.6b", dtype="float32", device="cpu", shard_bytes=4 << 30):
    """A random model of SHAPES[shape] (N(0, 0.02) matrices, unit norms) in dtype, drawn on device
    tensor by tensor and written in shards of about shard_bytes (an index beside them when more than
    one), so that the host holds one shard at a time; and a byte-level tokenizer.json."""
    from safetensors.torch import save_file
    os.makedirs(model, exist_ok=True)
    c = config(shape, dtype)
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16}[dtype]
    g = torch.Generator(device=device).manual_seed(0)
    h, q, kv, i = c["hidden_size"], c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"], c["intermediate_size"]

    def tensors():  # (name, shape, is_matrix) in file order
        yield "model.embed_tokens.weight", (c["vocab_size"], h), True
        for l in range(c["num_hidden_layers"]):
            p = f"model.layers.{l}."
            for name, sh in [("self_attn.q_proj.weight", (q, h)), ("self_attn.k_proj.weight", (kv, h)),
                             ("self_attn.v_proj.weight", (kv, h)), ("self_attn.o_proj.weight", (h, q)),
                             ("mlp.gate_proj.weight", (i, h)), ("mlp.up_proj.weight", (i, h)),
                             ("mlp.down_proj.weight", (h, i))]:
                yield p + name, sh, True
            for name, n in [("input_layernorm.weight", h), ("post_attention_layernorm.weight", h),
                            ("self_attn.q_norm.weight", c["head_dim"]), ("self_attn.k_norm.weight", c["head_dim"])]:
                yield p + name, (n,), False
        yield "model.norm.weight", (h,), False
        if not c["tie_word_embeddings"]:
            yield "lm_head.weight", (c["vocab_size"], h), True

    shards, cur, cur_bytes = [], {}, 0
    for name, sh, matrix in tensors():
        t = (torch.randn(*sh, generator=g, device=device) * 0.02) if matrix else torch.ones(*sh, device=device)
        cur[name] = t.to(dt).cpu()
        cur_bytes += cur[name].numel() * cur[name].element_size()
        if cur_bytes >= shard_bytes:
            shards.append(cur)
            cur, cur_bytes = {}, 0
            save_file(shards[-1], os.path.join(model, f"shard-{len(shards)}.tmp"), metadata={"format": "pt"})
            shards[-1] = list(shards[-1])  # keep the names only
    if cur:
        shards.append(cur)
        save_file(cur, os.path.join(model, f"shard-{len(shards)}.tmp"), metadata={"format": "pt"})
        shards[-1] = list(cur)
    if len(shards) == 1:
        os.replace(os.path.join(model, "shard-1.tmp"), os.path.join(model, "model.safetensors"))
    else:
        weight_map = {}
        for k, names in enumerate(shards, 1):
            fname = f"model-{k:05d}-of-{len(shards):05d}.safetensors"
            os.replace(os.path.join(model, f"shard-{k}.tmp"), os.path.join(model, fname))
            weight_map.update({n: fname for n in names})
        json.dump({"metadata": {}, "weight_map": weight_map},
                  open(os.path.join(model, "model.safetensors.index.json"), "w"))
    json.dump(c, open(os.path.join(model, "config.json"), "w"))
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
    print(json.dumps({"model": model, "shape": shape, "dtype": dtype, "params": param_count(shape),
                      "shards": len(shards)}))


def write_data(path, T, records):
    """Byte tokens: a prompt of about T/4 bytes and a completion that overflows T (cut there)."""
    P = int(T * PROMPT_FRACTION)
    with open(path, "w") as f:
        for r in range(records):
            body = f"def kernel_{r}(x):\n    return x * {r}\n"
            f.write(json.dumps({"prompt": (body * (P // len(body) + 1))[:max(P - 40, P // 2)],
                                "completion": (body * (T // len(body) + 2))}) + "\n")
    print(json.dumps({"data": path, "records": records, "T": T}))


def assets(work, T, records):
    write_model(os.path.join(work, "model"))
    write_data(os.path.join(work, "bench.jsonl"), T, records)


class RefQwen3(torch.nn.Module if torch else object):
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
    step = statistics.median(steady(times))
    print(json.dumps({"impl": impl, "B": B, "T": T, "steps": steps,
                      "tokens_per_s": B * T / step, "step_s_median": step,
                      "peak_allocated_gib": torch.cuda.max_memory_allocated() / 2**30,
                      "last_loss": loss.item()}))


def steady(xs):
    """The steps after 3 warm-up steps (all of them when there are 5 or fewer)."""
    return xs[3:] if len(xs) > 5 else xs


def ours_summary(run, label="tritonrl train sft"):
    rows = [json.loads(l) for l in open(os.path.join(run, "metrics.jsonl"))]
    steps = [r for r in rows if "loss" in r]
    tps = statistics.median(r["tokens_per_s"] for r in steady(steps))
    return {"impl": label, "steps": len(steps), "tokens_per_s": tps,
            "tokens_per_step": steps[-1]["tokens"], "last_loss": steps[-1]["loss"],
            "finite": all(math.isfinite(r["loss"]) for r in steps)}


def ours(work, run=None, label="tritonrl train sft"):
    print(json.dumps(ours_summary(run or os.path.join(work, "ours"), label)))


LORA_TARGETS = {"all": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
                "attention": ["q_proj", "k_proj", "v_proj", "o_proj"], "mlp": ["gate_proj", "up_proj", "down_proj"]}


def peft_loop(argv):
    """LoRA training with PEFT on transformers' Qwen3 loaded from --model in --dtype (frozen), the
    adapters in fp32 (PEFT's autocast_adapter_dtype, its default), no autocast (the adapters compute
    in fp32 on the fp32-cast input, as `train sft --lora-r` does), torch AdamW (fused on CUDA) over
    the adapters, clipping, labels -100 on the prompt quarter, transformers' own loss (labels=);
    --checkpoint: transformers' gradient checkpointing (non-reentrant). Median tokens/s after 3
    warm-up steps; an out-of-memory error prints status "oom" and exits 3."""
    import argparse
    ap = argparse.ArgumentParser(prog="sft_gpu.py peft")
    ap.add_argument("--model", required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--r", type=int, default=16)
    ap.add_argument("--alpha", type=float, default=16)
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--targets", default="all")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--checkpoint", action="store_true")
    a = ap.parse_args(argv)
    import peft
    import transformers
    from transformers import AutoModelForCausalLM
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    dt = {"bf16": torch.bfloat16, "fp32": torch.float32, "fp16": torch.float16}[a.dtype]
    out = {"impl": "PEFT %s + transformers %s" % (peft.__version__, transformers.__version__),
           "B": a.batch, "T": a.seq, "steps": a.steps, "checkpoint": a.checkpoint}
    try:
        t0 = time.perf_counter()
        model = AutoModelForCausalLM.from_pretrained(a.model, dtype=dt, attn_implementation="sdpa",
                                                     device_map=a.device)
        model.config.use_cache = False
        targets = LORA_TARGETS.get(a.targets, a.targets.split(","))
        model = peft.get_peft_model(model, peft.LoraConfig(r=a.r, lora_alpha=a.alpha, lora_dropout=a.dropout,
                                                           target_modules=targets, bias="none",
                                                           task_type="CAUSAL_LM"))
        if a.checkpoint:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.train()
        params = [p for p in model.parameters() if p.requires_grad]
        out.update(load_s=time.perf_counter() - t0, trainable=sum(p.numel() for p in params),
                   adapter_dtypes=sorted({str(p.dtype) for p in params}),
                   base_dtype=str(model.get_base_model().model.embed_tokens.weight.dtype))
        opt = torch.optim.AdamW(params, lr=a.lr, betas=(0.9, 0.95), weight_decay=0.1, fused=cuda or None)
        g = torch.Generator(device="cpu").manual_seed(0)
        ids = torch.randint(0, 256, (a.batch, a.seq), generator=g).to(dev)
        labels = ids.clone()
        labels[:, : int(a.seq * PROMPT_FRACTION)] = -100
        sync = torch.cuda.synchronize if cuda else (lambda: None)
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        times = []
        for _ in range(a.steps):
            sync()
            t0 = time.perf_counter()
            loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            sync()
            times.append(time.perf_counter() - t0)
    except torch.OutOfMemoryError as e:
        out.update(status="oom", error=str(e).splitlines()[0])
        print("out of memory:", e, file=sys.stderr)
        print(json.dumps(out))
        sys.exit(3)
    step = statistics.median(steady(times))
    out.update(status="ok", tokens_per_s=a.batch * a.seq / step, step_s_median=step, last_loss=loss.item())
    if cuda:
        out["peak_allocated_gib"] = torch.cuda.max_memory_allocated() / 2**30
    print(json.dumps(out))


# What an out-of-memory exit prints: CUDA's caching allocator (C++ and Python), libtorch's CPU
# allocator, a C++ allocation failure.
OOM_PATTERNS = ("out of memory", "OutOfMemoryError", "can't allocate memory", "std::bad_alloc",
                "Cannot allocate memory")


def measure(argv):
    """Runs CMD (its own process group) within --timeout seconds, its output appended to --log;
    samples the GPU's used memory every 0.2 s (nvidia-smi, when there is one) and reads the peak
    RSS of CMD's process tree; status ok, oom (an out-of-memory message in its output, or killed
    by the kernel's OOM killer), timeout or error; then parses the run's figures (--parse sft:RUN,
    grpo:RUN or json: its last JSON output line) and appends one record to --results."""
    import argparse
    import resource
    import shutil
    import signal
    import subprocess
    import threading
    ap = argparse.ArgumentParser(prog="sft_gpu.py measure")
    ap.add_argument("--key", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--timeout", type=float, default=540)
    ap.add_argument("--mem-limit-mb", type=int, default=0, help="address-space limit (CPU OOM drill)")
    ap.add_argument("--gpu", default=os.environ.get("GPU_INDEX", "0"))
    ap.add_argument("--parse", default="")
    ap.add_argument("--info", default="{}", help="JSON fields copied into the record")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    rec = dict(json.loads(a.info), key=a.key, cmd=" ".join(cmd))
    smi = shutil.which("nvidia-smi")
    q = [smi, "-i", a.gpu, "--query-gpu=memory.used", "--format=csv,noheader,nounits"] if smi else None
    samples = []
    if q:
        try:
            rec["gpu_before_mib"] = int(subprocess.run(q, capture_output=True, text=True, timeout=30).stdout.split()[0])
        except (ValueError, IndexError, subprocess.SubprocessError):
            q = None
    poller = subprocess.Popen(q + ["-lms", "200"], stdout=subprocess.PIPE, text=True) if q else None

    def read_poller():
        for line in poller.stdout:
            try:
                samples.append((time.time(), int(line.strip())))
            except ValueError:
                pass
    if poller:
        threading.Thread(target=read_poller, daemon=True).start()

    def limit():
        if a.mem_limit_mb:
            resource.setrlimit(resource.RLIMIT_AS, (a.mem_limit_mb << 20, a.mem_limit_mb << 20))
    with open(a.log, "a") as log:
        log.write(f"\n==== {a.key}: {rec['cmd']}\n")
        log.flush()
        start = log.tell()
        t0 = time.perf_counter()
        timed_out = not_started = False
        try:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                    preexec_fn=limit)
            rc = proc.wait(timeout=a.timeout)
        except OSError as e:  # not started: an error record, the next runs go on
            log.write(f"cannot run {cmd[0]}: {e}\n")
            rc, not_started = 127, True
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                rc = proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                rc = proc.wait()
        rec["wall_s"] = round(time.perf_counter() - t0, 1)
    if poller:
        poller.terminate()
        poller.wait()
    with open(a.log, errors="replace") as log:
        log.seek(start)
        output = log.read()
    rec["rc"] = rc
    rec["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    if samples:
        rec["peak_gpu_mib"] = max(m for _, m in samples)
    oom = any(p.lower() in output.lower() for p in OOM_PATTERNS) or rc == -signal.SIGKILL
    rec["status"] = ("timeout" if timed_out else "not started" if not_started else "ok" if rc == 0
                     else "oom" if oom else "error")
    if rec["status"] in ("oom", "error", "not started"):
        lines = [l for l in output.splitlines() if any(p.lower() in l.lower() for p in OOM_PATTERNS)]
        rec["error"] = (lines or output.strip().splitlines()[-1:] or [""])[0][:300]
    kind, _, path = a.parse.partition(":")
    try:
        if kind == "json":
            found = [l for l in output.splitlines() if l.startswith("{")]
            if found:
                rec.update({k: v for k, v in json.loads(found[-1]).items() if k != "status"})
        elif kind == "sft" and rec["status"] == "ok":
            rec.update(ours_summary(path))
        elif kind == "grpo" and rec["status"] == "ok":
            metrics = os.path.join(path, "metrics.jsonl")
            rec["grpo"] = [json.loads(l) for l in open(metrics) if l.strip()]
            prompts = [len(json.loads(l)["prompt"].encode()) for l in open(os.path.join(path, "rollouts.jsonl"))]
            rec["mean_prompt_bytes"] = sum(prompts) / max(len(prompts), 1)
            if samples and len(rec["grpo"]) == 1:
                rec["phase_peak_gpu_mib"] = phase_peaks(samples, os.path.getmtime(metrics), rec["grpo"][0])
    except (OSError, ValueError, KeyError, statistics.StatisticsError) as e:
        rec["parse_error"] = repr(e)
    with open(a.results, "a") as f:
        f.write(json.dumps(rec) + "\n")
    brief = {k: rec[k] for k in ("key", "status", "wall_s", "peak_gpu_mib", "peak_rss_mib", "tokens_per_s", "error")
             if k in rec}
    print(json.dumps(brief))


def phase_peaks(samples, end, m):
    """The GPU memory peak (nvidia-smi samples (time, MiB)) within each phase of a one-step GRPO run
    (on-policy: generation, scoring, update in turn), the phases placed back from the step's end
    (the metrics file's last write) by their logged seconds. nvidia-smi sees what libtorch's caching
    allocator holds, so a phase's figure includes memory an earlier phase freed but kept cached."""
    bounds, t = {}, end
    for k in ("update", "score", "gen"):
        bounds[k] = (t - m[k + "_seconds"], t)
        t -= m[k + "_seconds"]
    names = {"gen": "generation", "score": "scoring", "update": "update"}
    return {names[k]: max((mib for ts, mib in samples if lo - 0.3 <= ts <= hi + 0.3), default=None)
            for k, (lo, hi) in reversed(list(bounds.items()))}


def results(path):
    """The last record of each key in a results file, in first-seen order."""
    out = {}
    if os.path.exists(path):
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                out.pop(r["key"], None)
                out[r["key"]] = r
    return out


def done(path, key):
    """A run to skip on a resumed call: finished (ok, out of memory or failed), not timed out or
    not started."""
    r = results(path).get(key)
    sys.exit(0 if r and r["status"] in ("ok", "oom", "error") else 1)


def mem(r):
    """A record's peak memory in GiB as text: the GPU's (nvidia-smi) when sampled, else the RSS."""
    if "peak_gpu_mib" in r:
        return "%.1f" % (r["peak_gpu_mib"] / 1024)
    return "%.2f (RSS)" % (r["peak_rss_mib"] / 1024)


def tables(path):
    rs = list(results(path).values())
    sft = [r for r in rs if r.get("part") == "sft"]
    if sft:
        print("### LoRA SFT: tritonrl train sft against PEFT + transformers\n")
        print("| run | shape | B x T | steps | tokens/s (median after 3) | peak GiB | allocator peak GiB | status |")
        print("|---|---|---|---|---|---|---|---|")
        for r in sft:
            tps = "%.0f" % r["tokens_per_s"] if "tokens_per_s" in r else "-"
            alloc = "%.1f" % r["peak_allocated_gib"] if "peak_allocated_gib" in r else "-"
            print(f"| {r['label']} | {r['shape']} | {r['B']} x {r['T']} | {r.get('steps', '-')} | {tps} | {mem(r)} | "
                  f"{alloc} | {r['status']} |")
        for ck in ("", "+ckpt"):
            o = next((r for r in sft if r["mode"] == "ours" + ck and "tokens_per_s" in r), None)
            p = next((r for r in sft if r["mode"] == "peft" + ck and "tokens_per_s" in r), None)
            if o and p:
                mk = "peak_gpu_mib" if "peak_gpu_mib" in o and "peak_gpu_mib" in p else "peak_rss_mib"
                sp, mr = o["tokens_per_s"] / p["tokens_per_s"], o[mk] / max(p[mk], 1)
                print(f"\n{'with checkpointing' if ck else 'without checkpointing'}: tritonrl / PEFT tokens/s "
                      f"{sp:.2f}x, memory {mr:.2f}x ({mk}); goal >= 1.5x at <= 1.00x: "
                      f"{'met' if sp >= 1.5 and mr <= 1.0 else 'not met'}")
        print()
    grpo = [r for r in rs if r.get("part") == "grpo"]
    for r in grpo:
        print(f"### One GRPO step with LoRA ({r['shape']}, {r['tasks']} tasks x {r['group']} rollouts, "
              f"{r['new']} new tokens, {r['flags']})\n")
        if r["status"] != "ok" or not r.get("grpo"):
            print(f"status {r['status']}: {r.get('error', '')} (wall {r['wall_s']} s, peak {mem(r)} GiB)\n")
            continue
        m = r["grpo"][0]
        n = r["tasks"] * r["group"]
        ph = r.get("phase_peak_gpu_mib", {})
        gib = lambda k: "%.1f" % (ph[k] / 1024) if ph.get(k) is not None else "-"
        print("| peak GiB | peak GiB in generation / update | generation s | scoring s | update s | "
              "gen tokens/s | mean response tokens | truncated | loss tokens | wall s (process) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        print(f"| {mem(r)} | {gib('generation')} / {gib('update')} | {m['gen_seconds']:.1f} | "
              f"{m['score_seconds']:.1f} | {m['update_seconds']:.1f} | {m['gen_tokens_per_second']:.0f} | "
              f"{m['response_tokens']:.0f} | {m['truncated']}/{n} | {m.get('loss_tokens', '-')} | {r['wall_s']} |")
        if m["truncated"] == n:
            print(f"\nAll {n} rollouts ran to --max-new-tokens: random weights rarely emit EOS, so this is the "
                  "worst case (every KV-cache row lives to the end, every row is updated at full length).")
        else:
            print(f"\n{n - m['truncated']} of {n} rollouts ended before --max-new-tokens (EOS).")
        if "mean_prompt_bytes" in r:
            nb = r["mean_prompt_bytes"]
            print(f"Prompts: {nb:.0f} bytes on average, a token a byte with the bench's byte-level tokenizer; "
                  f"Qwen3's makes about a token of 3.5 bytes of such text, so each row here holds about "
                  f"{nb * (1 - 1 / 3.5):.0f} more tokens (KV cache, update) than it would with the real one.")
        print("Phase peaks: nvidia-smi samples within each phase's logged seconds, counted back from the "
              "step's end; they include memory the caching allocator kept from an earlier phase.\n")
    fit = [r for r in rs if r.get("part") == "fit"]
    if fit:
        modes = list(dict.fromkeys(r["mode"] for r in fit))
        shapes = list(dict.fromkeys(r["shape"] for r in fit))
        bt = sorted({f"{r['B']} x {r['T']}" for r in fit})
        st = sorted({str(r["steps_asked"]) for r in fit})
        print(f"### What fits: peak GiB of {', '.join(st)} train sft steps at B x T = {', '.join(bt)} "
              f"(OOM: out of memory)\n")
        print("| shape | params | " + " | ".join(modes) + " |")
        print("|---|---|" + "---|" * len(modes))
        for sh in shapes:
            cells = []
            for mo in modes:
                r = next((x for x in fit if x["shape"] == sh and x["mode"] == mo), None)
                cells.append("-" if r is None else mem(r) if r["status"] == "ok" else r["status"].upper()
                             if r["status"] == "oom" else r["status"])
            n = param_count(sh)
            size = f"{n / 1e9:.2f}B" if n >= 1e9 else f"{n / 1e6:.1f}M"
            print(f"| {sh} | {size} | " + " | ".join(cells) + " |")
        print()
    if rs:
        print("Peak GiB: GPU memory used, whole device (nvidia-smi every 0.2 s, the same for every run), or,"
              " marked RSS, the process tree's peak resident memory (no GPU).\n")


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
    cmd = sys.argv[1]
    if cmd == "peft":
        peft_loop(sys.argv[2:])
    elif cmd == "measure":
        measure(sys.argv[2:])
    elif cmd == "model":
        write_model(sys.argv[2], *sys.argv[3:6])
    elif cmd == "data":
        write_data(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "done":
        done(sys.argv[2], sys.argv[3])
    elif cmd == "tables":
        tables(sys.argv[2])
    elif cmd == "assets":
        assets(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "baseline":
        baseline(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "ours":
        ours(sys.argv[2], *sys.argv[3:5])
    elif cmd == "phases":
        phases(sys.argv[2])
    else:
        sys.exit(__doc__)
