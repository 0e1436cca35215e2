"""GPU-side helpers for bench/gpu/model.sh (needs torch, transformers, tokenizers).

Subcommands (each prints PASS/FAIL lines and exits 0 on pass, 1 on fail):
  assets    DIR             random Qwen3 model of Qwen3-0.6B's shape (sharded safetensors)
                            and a byte-level BPE tokenizer with the Qwen2 pre-tokenizer
  ids       DIR             input files: logit-parity rows, benchmark prompts, tokenizer strings
  logits    DIR BIN DTYPE   our logits (model_parity) vs transformers' on the same rows
  tokenizer DIR BIN         our ids vs tokenizers' on >= 10,000 strings
  bench     DIR BIN         decode (64 x 512) and prefill throughput, ours vs transformers,
                            with the memory roofline
"""

import json
import os
import random
import subprocess
import sys
import time

import numpy as np
import torch

# The Qwen2/Qwen3 pre-tokenizer split pattern (same text as kQwen2SplitPattern in
# src/model/tokenizer.cpp).
QWEN2_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
ADDED = ["<think>", "</think>"]
SHAPE = dict(
    vocab_size=151936,
    hidden_size=1024,
    intermediate_size=3072,
    num_hidden_layers=28,
    num_attention_heads=16,
    num_key_value_heads=8,
    head_dim=128,
    max_position_embeddings=40960,
    rms_norm_eps=1e-6,
    tie_word_embeddings=True,
)
ROPE_THETA = 1e6
BATCH, PROMPT_LEN, NEW_TOKENS = 64, 256, 512


def verdict(name, ok, detail):
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
    return ok


# ---------------------------------------------------------------- text generator

WORDS = (
    "the of and to in is for on that with as by this be are from at or an it not which we "
    "kernel triton tensor block program grid stride pointer mask load store reduce softmax "
    "matmul attention layer norm batch float half bfloat16 cuda warp thread memory cache"
).split()
UNICODE_WORDS = [
    "naïve", "café", "façade", "Ünïcödé", "straße", "Ærøskøbing", "日本語", "中文字符",
    "한국어", "привет", "Ελληνικά", "עברית", "العربية", "हिन्दी", "ไทย", "🎉", "🚀🔥",
    "👩‍💻", "∑∫√∞", "→⇒⟶", "½¾", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ｆｕｌｌｗｉｄｔｈ", "\u00a0nbsp", "soft\u00adhyphen",
]
CODE_LINES = [
    "import torch\nimport triton\nimport triton.language as tl\n",
    "@triton.jit\ndef relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n",
    "    pid = tl.program_id(axis=0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n",
    "    mask = offs < n\n    x = tl.load(x_ptr + offs, mask=mask, other=0.0)\n",
    "    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)\n",
    "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
    "for (int i = 0; i < n; ++i) { y[i] = x[i] * 2.0f; }\n",
    "if x == 1:\n\treturn {'a': [1, 2, 3], \"b\": (4.5e-3, 0x1F)}\n",
    "    # don't won't it's I'M YOU'LL they'd we've\r\n",
    "def f(a,b):return a**b//3%7&~0|1^2<<3>>1\n\n\n",
]


# Blocks assigned since early Unicode versions, so the regex engines' Unicode
# tables (PCRE2 here, Oniguruma in tokenizers) agree on every character's class.
STABLE_BLOCKS = [
    (0x21, 0x7E), (0xA0, 0xFF), (0x100, 0x17F), (0x391, 0x3C9), (0x410, 0x44F), (0x5D0, 0x5EA),
    (0x621, 0x64A), (0x2010, 0x2027), (0x2190, 0x21FF), (0x3041, 0x3096), (0x4E00, 0x9FA5),
    (0xAC00, 0xD7A3), (0x1F300, 0x1F5FF), (0x30, 0x39), (0x660, 0x669), (0xFF10, 0xFF19),
]


def random_text(rng):
    kind = rng.random()
    parts = []
    for _ in range(rng.randint(1, 12)):
        r = rng.random()
        if r < 0.35:
            parts.append(rng.choice(WORDS))
        elif r < 0.55:
            parts.append(rng.choice(UNICODE_WORDS))
        elif r < 0.7:
            parts.append(str(rng.randint(0, 10 ** rng.randint(1, 12))))
        elif r < 0.85:
            parts.append(rng.choice(CODE_LINES))
        elif r < 0.92:
            parts.append(rng.choice([" ", "  ", "    ", "\t", "\n", "\n\n", "\r\n", " \n ", "   \t\n"]))
        else:
            lo, hi = rng.choice(STABLE_BLOCKS)
            parts.append("".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(1, 6))))
    sep = rng.choice([" ", "", "\n", "  "]) if kind < 0.8 else rng.choice(["", "\t"])
    text = sep.join(parts)
    return text


def corpus(n, seed):
    rng = random.Random(seed)
    return [random_text(rng) for _ in range(n)]


# ---------------------------------------------------------------- assets


def cmd_assets(d):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import Qwen3Config, Qwen3ForCausalLM

    os.makedirs(d, exist_ok=True)
    model_dir = os.path.join(d, "model")
    torch.manual_seed(0)
    cfg = Qwen3Config(
        **SHAPE,
        rope_theta=ROPE_THETA,
        rope_parameters={"rope_type": "default", "rope_theta": ROPE_THETA},
    )
    model = Qwen3ForCausalLM(cfg).float().eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name:  # ones by default: perturb so a misapplied norm shows
                p.add_(0.1 * torch.randn_like(p))
    model.save_pretrained(model_dir, max_shard_size="600MB")
    files = sorted(os.listdir(model_dir))
    conf = json.load(open(os.path.join(model_dir, "config.json")))
    print("model files:", files)
    print("config:", json.dumps(conf, sort_keys=True))
    theta = conf.get("rope_theta", (conf.get("rope_parameters") or {}).get("rope_theta"))
    ok = verdict("assets.model", theta == ROPE_THETA and any(f.endswith(".safetensors") for f in files),
                 f"{sum(p.numel() for p in model.parameters())/1e6:.1f} M parameters, rope_theta {theta}")

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=6000,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=SPECIAL,
        show_progress=False,
    )
    tok.train_from_iterator(corpus(20000, seed=1), trainer)
    tok.add_tokens(ADDED)
    tok.save(os.path.join(d, "tokenizer.json"))
    # The model directory gets it too, so `tritonrl generate --model` can run.
    tok.save(os.path.join(model_dir, "tokenizer.json"))
    ok &= verdict("assets.tokenizer", tok.get_vocab_size() > 1000, f"vocab {tok.get_vocab_size()}")
    return ok


def cmd_ids(d):
    g = torch.Generator().manual_seed(3)
    rows = [torch.randint(0, SHAPE["vocab_size"], (64,), generator=g).tolist() for _ in range(3)]
    rows.append(torch.randint(0, SHAPE["vocab_size"], (300,), generator=g).tolist())
    json.dump({"ids": rows}, open(os.path.join(d, "parity_ids.json"), "w"))
    prompts = torch.randint(0, SHAPE["vocab_size"], (BATCH, PROMPT_LEN), generator=g).tolist()
    json.dump({"ids": prompts}, open(os.path.join(d, "bench_ids.json"), "w"))
    strings = corpus(10000, seed=2)
    rng = random.Random(4)
    edge = ["", " ", "\n", "  \n\n  ", "'s 'S 'T", "123456789", "a" * 5000, " " * 300,
            "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
            "e\u0301 (combining)", "\U0001F469\u200d\U0001F4BB", "x<|endoftext|>y<think>"]
    for _ in range(600):  # special tokens inside ordinary text
        s = rng.choice(strings)
        k = rng.randint(0, len(s))
        edge.append(s[:k] + rng.choice(SPECIAL + ADDED) + s[k:])
    strings += edge
    with open(os.path.join(d, "strings.jsonl"), "w") as f:
        for s in strings:
            f.write(json.dumps(s) + "\n")
    return verdict("inputs", True, f"{len(rows)} parity rows, {BATCH}x{PROMPT_LEN} prompts, "
                   f"{len(strings)} strings")


# ---------------------------------------------------------------- logits parity


def run(cmd):
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {r.returncode}")
    return r.stdout


def cmd_logits(d, bin_dir, dtype):
    from transformers import Qwen3ForCausalLM

    tol = {"fp32": 1e-4, "bf16": 2e-2}[dtype]
    tdt = {"fp32": torch.float32, "bf16": torch.bfloat16}[dtype]
    out = os.path.join(d, f"ours_{dtype}.f32")
    model_dir = os.path.join(d, "model")
    rows = json.load(open(os.path.join(d, "parity_ids.json")))["ids"]
    try:
        t0 = time.time()
        run([os.path.join(bin_dir, "model_parity"), "logits", "--model", model_dir, "--ids",
             os.path.join(d, "parity_ids.json"), "--out", out, "--dtype", dtype, "--device", "cuda"])
        print(f"ours: {time.time() - t0:.1f} s")
    except Exception as e:  # noqa: BLE001 - report and fail this step only
        return verdict(f"logits.{dtype}", False, str(e))
    ours = np.fromfile(out, dtype=np.float32)
    torch.backends.cuda.matmul.allow_tf32 = False
    model = Qwen3ForCausalLM.from_pretrained(model_dir, dtype=tdt).cuda().eval()
    worst = 0.0
    offset = 0
    with torch.no_grad():
        for i, r in enumerate(rows):
            ids = torch.tensor([r], device="cuda")
            ref = model(ids).logits[0].float().cpu().numpy()
            mine = ours[offset:offset + ref.size].reshape(ref.shape)
            offset += ref.size
            diff = np.abs(ref - mine)
            print(f"row {i}: T={len(r)} max|ref|={np.abs(ref).max():.4f} max diff={diff.max():.3e} "
                  f"mean diff={diff.mean():.3e} argmax agree={np.mean(ref.argmax(-1) == mine.argmax(-1)):.4f}")
            worst = max(worst, float(diff.max()))
    if offset != ours.size:
        return verdict(f"logits.{dtype}", False, f"size mismatch: ours {ours.size}, expected {offset}")
    return verdict(f"logits.{dtype}", worst <= tol, f"max abs diff {worst:.3e} (limit {tol})")


# ---------------------------------------------------------------- tokenizer parity


def cmd_tokenizer(d, bin_dir):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
    strings = [json.loads(line) for line in open(os.path.join(d, "strings.jsonl"))]
    t0 = time.time()
    ref = [tok.encode(s, add_special_tokens=False).ids for s in strings]
    t_ref = time.time() - t0
    out = os.path.join(d, "our_ids.jsonl")
    try:
        info = json.loads(run([os.path.join(bin_dir, "model_parity"), "tokenize", "--tokenizer",
                               os.path.join(d, "tokenizer.json"), "--in",
                               os.path.join(d, "strings.jsonl"), "--out", out]).strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001
        return verdict("tokenizer", False, str(e))
    ours = [json.loads(line)["ids"] for line in open(out)]
    bad = [i for i, (a, b) in enumerate(zip(ref, ours)) if a != b]
    for i in bad[:10]:
        print(f"MISMATCH {i}: {strings[i]!r}\n  tokenizers: {ref[i][:40]}\n  ours:       {ours[i][:40]}")
    n_tok = sum(len(r) for r in ref)
    print(f"tokenizers: {t_ref:.2f} s; ours: {info['seconds']:.2f} s for {len(strings)} strings, {n_tok} tokens")
    # Decode round trip through tokenizers' own decoder for the same ids.
    dec_bad = sum(1 for s, r in zip(strings, ref) if tok.decode(r, skip_special_tokens=False) != s)
    print(f"tokenizers decode round-trip mismatches (informational): {dec_bad}")
    ok = len(ours) == len(ref) and not bad and len(strings) >= 10000
    return verdict("tokenizer", ok, f"{len(strings) - len(bad)}/{len(strings)} strings identical ids")


# ---------------------------------------------------------------- throughput


def copy_bandwidth():
    n = 1 << 30  # 1 GiB each way
    a = torch.empty(n, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(20):
        b.copy_(a)
    torch.cuda.synchronize()
    return 2 * n * 20 / (time.perf_counter() - t0)


def cmd_bench(d, bin_dir):
    from transformers import Qwen3ForCausalLM

    model_dir = os.path.join(d, "model")
    ids_path = os.path.join(d, "bench_ids.json")
    prompts = json.load(open(ids_path))["ids"]
    results = {}
    for label, extra in (("ours", []), ("ours_eager", ["--no-graphs"])):
        try:
            line = run([os.path.join(bin_dir, "model_parity"), "bench", "--model", model_dir, "--ids",
                        ids_path, "--new", str(NEW_TOKENS), "--dtype", "bf16"] + extra)
            results[label] = json.loads(line.strip().splitlines()[-1])
        except Exception as e:  # noqa: BLE001
            print(f"{label} failed: {e}")

    model = Qwen3ForCausalLM.from_pretrained(model_dir, dtype=torch.bfloat16).cuda().eval()
    ids = torch.tensor(prompts, device="cuda")
    mask = torch.ones_like(ids)
    gen_kw = dict(do_sample=True, temperature=1.0, top_k=0, top_p=1.0, pad_token_id=0)
    def best_forward_seconds(use_cache):
        for _ in range(2):
            model(ids, use_cache=use_cache, logits_to_keep=1)
        torch.cuda.synchronize()
        best = 1e30
        for _ in range(5):
            t0 = time.perf_counter()
            model(ids, use_cache=use_cache, logits_to_keep=1)
            torch.cuda.synchronize()
            best = min(best, time.perf_counter() - t0)
        return best

    with torch.no_grad():
        # Prefill, like for like: our Prefill returns the next-token logits AND a
        # KV cache ready for decoding, so transformers' forward is timed filling
        # its cache too (use_cache=True: what generate() runs as its prefill).
        # The bare forward (use_cache=False: no cache written) is reported too.
        hf_prefill = ids.numel() / best_forward_seconds(True)
        hf_forward_bare = ids.numel() / best_forward_seconds(False)
        model.generate(ids, attention_mask=mask, max_new_tokens=8, min_new_tokens=8, **gen_kw)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = model.generate(ids, attention_mask=mask, max_new_tokens=NEW_TOKENS,
                             min_new_tokens=NEW_TOKENS, **gen_kw)
        torch.cuda.synchronize()
        hf_secs = time.perf_counter() - t0
    hf_new = (out.shape[1] - ids.shape[1]) * ids.shape[0]
    hf_decode = hf_new / hf_secs  # includes its prefill, as generate() does

    # Roofline: every decode step reads all weights once (bf16; tied embedding
    # read once, as the head) plus each row's K and V for its current context.
    bw = copy_bandwidth()
    params = sum(p.numel() for p in model.parameters())
    weight_bytes = params * 2
    kv_per_token = SHAPE["num_hidden_layers"] * 2 * SHAPE["num_key_value_heads"] * SHAPE["head_dim"] * 2
    avg_ctx = PROMPT_LEN + (NEW_TOKENS - 1) / 2
    kv_bytes = BATCH * avg_ctx * kv_per_token
    step_bytes = weight_bytes + kv_bytes
    roof = {bwv: BATCH / (step_bytes / bwv) for bwv in (bw, 4.27e12)}
    print("\nroofline arithmetic:")
    print(f"  parameters {params/1e6:.1f} M -> weight bytes/step {weight_bytes/1e9:.3f} GB (bf16)")
    print(f"  KV bytes/token = layers 28 x (K,V) 2 x kv_heads 8 x head_dim 128 x 2 B = {kv_per_token} B")
    print(f"  average context = prompt {PROMPT_LEN} + ({NEW_TOKENS}-1)/2 = {avg_ctx:.1f}; "
          f"KV bytes/step = {BATCH} x {avg_ctx:.1f} x {kv_per_token} = {kv_bytes/1e9:.3f} GB")
    print(f"  bytes/step {step_bytes/1e9:.3f} GB; measured copy bandwidth {bw/1e12:.2f} TB/s")
    print(f"  roofline = {BATCH} tokens/step / (bytes/step / bandwidth) = {roof[bw]:.0f} tokens/s "
          f"(at 4.27 TB/s: {roof[4.27e12]:.0f})")

    print(f"\nprefill ({BATCH} x {PROMPT_LEN} tokens): transformers forward with KV cache {hf_prefill:.0f} "
          f"tokens/s; bare forward without cache {hf_forward_bare:.0f} tokens/s")
    print("\n| run | prefill tokens/s | decode new tokens/s | vs transformers | % of roofline |")
    print("|---|---|---|---|---|")
    print(f"| transformers generate (bf16, sdpa, sampling) | {hf_prefill:.0f} | {hf_decode:.0f} | 1.00x | "
          f"{100*hf_decode/roof[bw]:.1f}% |")
    for label, r in results.items():
        print(f"| {label} ({'CUDA graphs' if r['cuda_graphs'] else 'eager'}) | {r['prefill_tokens_per_s']:.0f} | "
              f"{r['decode_tokens_per_s']:.0f} | {r['decode_tokens_per_s']/hf_decode:.2f}x | "
              f"{100*r['decode_tokens_per_s']/roof[bw]:.1f}% |")
    ok = True
    r = results.get("ours")
    if r is None:
        return verdict("bench", False, "our benchmark did not run")
    ok &= verdict("bench.decode_vs_transformers", r["decode_tokens_per_s"] >= 10 * hf_decode,
                  f"{r['decode_tokens_per_s']:.0f} vs {hf_decode:.0f} tokens/s "
                  f"({r['decode_tokens_per_s']/hf_decode:.1f}x, goal 10x)")
    ok &= verdict("bench.decode_vs_roofline", r["decode_tokens_per_s"] >= 0.25 * roof[bw],
                  f"{100*r['decode_tokens_per_s']/roof[bw]:.1f}% of {roof[bw]:.0f} tokens/s (goal 25%)")
    ok &= verdict("bench.prefill", r["prefill_tokens_per_s"] >= hf_prefill,
                  f"{r['prefill_tokens_per_s']:.0f} vs transformers forward with KV cache {hf_prefill:.0f} "
                  f"tokens/s (bare forward without cache: {hf_forward_bare:.0f}; "
                  f"ours {r['prefill_tokens_per_s'] / hf_forward_bare:.2f}x of it)")
    return ok


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    fn = {"assets": cmd_assets, "ids": cmd_ids, "logits": cmd_logits, "tokenizer": cmd_tokenizer,
          "bench": cmd_bench}[cmd]
    sys.exit(0 if fn(*args) else 1)


if __name__ == "__main__":
    main()
