"""TRL's GRPOTrainer for a few steps with `tritonrl serve`'s POST /v1/reward as its reward function
(issue 17's integration proof on the H200).

The reward function is the one docs/serve.md gives users, unchanged: each task's completions go to
/v1/reward as one group and the server's reward comes back per completion.

Two policies:
  - default: a tiny random Qwen3 (transformers) with a byte-level tokenizer built here, prompted on
    tasks of the built-in suite. It writes no kernel, so every reward is 0 and GRPO's advantages
    are 0: the run proves the plumbing (TRL -> HTTP -> static stage -> verdict -> reward), not
    learning.
  - --model DIR --tasks DIR --prompts JSONL: a Hugging Face checkpoint (e.g. the demo's SFT
    checkpoint, `tritonrl demo --gpu` -> OUT/sft/checkpoint) on the tasks it was trained for, with
    the records' prompts ({"task", "prompt"} per line): rewards then vary within groups.

TRL, datasets, dill and multiprocess are not on the GPU machine: when `import trl` fails, the
wheels in .whl/ (carried with the run) are installed into a temporary folder first.

  BIN=<folder with tritonrl> OUT=<folder> python3 bench/serve/trl_grpo.py [--steps 3] [--device cuda]
Prints TRL's per-step logs and writes $OUT/trl_grpo.json (per step: reward mean/std, loss, time).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Server  # noqa: E402


def import_trl():
    try:
        import trl  # noqa: F401
    except ImportError:
        wheels = sorted(glob.glob(os.path.join(ROOT, ".whl", "*.whl")))
        if not wheels:
            raise SystemExit("trl is not installed and .whl/ holds no wheels: run scripts/fetch_trl_wheels.sh")
        site = tempfile.mkdtemp(prefix="trl_site_")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                        "--target", site, *wheels], check=True)
        sys.path.insert(0, site)
    import trl

    return trl


def byte_tokenizer():
    """A byte-level BPE without merges (256 byte tokens) plus <eos> and <pad>."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok)
    fast.add_special_tokens({"eos_token": "<eos>", "pad_token": "<pad>"})
    return fast


def tiny_qwen3(vocab_size, seed):
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(seed)
    cfg = Qwen3Config(vocab_size=vocab_size, hidden_size=64, intermediate_size=128,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                      max_position_embeddings=4096, tie_word_embeddings=True)
    return Qwen3ForCausalLM(cfg)


def reward_client(url, log):
    """docs/serve.md's TRL reward function, bound to this server; also logs each call."""
    from collections import defaultdict
    from concurrent.futures import ThreadPoolExecutor
    import urllib.request

    def post(path, body, timeout=3600):
        req = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.load(resp)

    def tritonrl_reward(prompts, completions, task, **kwargs):
        texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
        groups = defaultdict(list)
        for i, t in enumerate(task):
            groups[t].append(i)

        def score(item):
            t, idx = item
            r = post("/v1/reward", {"task": t, "rollouts": [{"id": str(i), "output": texts[i]} for i in idx]})
            return {int(x["id"]): x for x in r["rollouts"]}

        t0 = time.time()
        rewards = [0.0] * len(texts)
        outcomes = {}
        with ThreadPoolExecutor(max_workers=len(groups)) as pool:
            for part in pool.map(score, groups.items()):
                for i, x in part.items():
                    rewards[i] = x["reward"]
                    outcomes[x.get("outcome", "?")] = outcomes.get(x.get("outcome", "?"), 0) + 1
        log.append({"completions": len(texts), "groups": len(groups), "seconds": round(time.time() - t0, 3),
                    "reward_mean": sum(rewards) / len(rewards), "outcomes": outcomes})
        return rewards

    return tritonrl_reward


def main():
    import torch

    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--group", type=int, default=4, help="completions per prompt (GRPO group)")
    ap.add_argument("--prompts-per-step", type=int, default=2)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--model", help="a Hugging Face checkpoint directory (default: a tiny random Qwen3)")
    ap.add_argument("--tasks", default=os.path.join(ROOT, "tasks"))
    ap.add_argument("--prompts", help='JSONL of {"task", "prompt"} (default: level-1 tasks of the suite)')
    args = ap.parse_args()
    bin_dir = os.environ.get("BIN", os.path.join(ROOT, "build"))
    out = os.environ.get("OUT", tempfile.mkdtemp(prefix="trl_grpo_"))
    os.makedirs(out, exist_ok=True)

    trl = import_trl()
    import datasets
    import transformers

    if args.model:
        tokenizer = transformers.AutoTokenizer.from_pretrained(args.model)
        model = transformers.AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
        # Our checkpoints end a turn with the config's eos (<|im_end|>); TRL takes the tokenizer's.
        tokenizer.eos_token = tokenizer.convert_ids_to_tokens(model.config.eos_token_id)
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
    else:
        tokenizer = byte_tokenizer()
        model = tiny_qwen3(len(tokenizer), seed=0)
    if args.prompts:
        rows = [json.loads(line) for line in open(args.prompts) if line.strip()]
        # The Qwen3 chat template as our trainer applies it (src/model/chat_template.cpp): the
        # checkpoint's tokenizer.json carries no template of its own.
        rows = [{"task": r["task"], "prompt": f"<|im_start|>user\n{r['prompt']}<|im_end|>\n<|im_start|>assistant\n"}
                for r in rows]
    else:
        ids = ["level1/1_ReLU", "level1/2_AddBroadcast", "level1/3_Softmax", "level1/4_RowSum"]
        rows = []
        for t in ids:
            src = open(os.path.join(args.tasks, t + ".py")).read()
            rows.append({"task": t, "prompt": "Write ModelNew with Triton kernels for this PyTorch model:\n" + src})
    n_prompts = args.steps * args.prompts_per_step
    rows = (rows * (n_prompts // len(rows) + 1))[:n_prompts]
    dataset = datasets.Dataset.from_list(rows)

    server = Server(bin_dir, os.path.join(out, "serve_state"),
                    ["--tasks", args.tasks, "--device", "cuda" if args.device.startswith("cuda") else "cpu",
                     "--jobs", str(args.jobs)],
                    os.path.join(out, "trl_serve.log"))
    calls = []
    try:
        config = trl.GRPOConfig(
            output_dir=os.path.join(out, "trl_out"),
            per_device_train_batch_size=args.group * args.prompts_per_step,
            num_generations=args.group,
            max_completion_length=args.max_new_tokens,
            max_steps=args.steps,
            learning_rate=1e-5,
            logging_steps=1,
            save_strategy="no",
            report_to=[],
            use_cpu=not args.device.startswith("cuda"),
            bf16=False,
            seed=0,
        )
        trainer = trl.GRPOTrainer(model=model, reward_funcs=reward_client(server.url, calls), args=config,
                                  train_dataset=dataset, processing_class=tokenizer)
        t0 = time.time()
        trainer.train()
        wall = time.time() - t0
    finally:
        rc = server.stop()
    steps = [h for h in trainer.state.log_history if "loss" in h or "reward" in h]
    doc = {"trl": trl.__version__, "transformers": transformers.__version__, "device": args.device,
           "model": args.model or "tiny random Qwen3 (2 layers, hidden 64, byte tokenizer)",
           "steps": steps, "reward_calls": calls, "train_seconds": round(wall, 1), "server_exit": rc}
    with open(os.path.join(out, "trl_grpo.json"), "w") as f:
        json.dump(doc, f, indent=1)
    for i, h in enumerate(steps):
        print(f"step {i + 1}: loss {h.get('loss')} reward {h.get('reward')} reward_std {h.get('reward_std')}")
    for c in calls:
        print(f"reward call: {c['completions']} completions in {c['groups']} groups, {c['seconds']} s, "
              f"mean {c['reward_mean']:.3f}, outcomes {c['outcomes']}")
    print(f"TRL {trl.__version__} GRPOTrainer: {len(calls)} reward calls, {config.max_steps} steps in {wall:.1f} s")
    if len(calls) < args.steps:
        raise SystemExit(f"only {len(calls)} reward calls for {args.steps} steps")


if __name__ == "__main__":
    main()
