"""TRL's GRPOTrainer for a few steps with `tritonrl serve`'s POST /v1/reward as its reward function
(issue 17's integration proof on the H200).

The reward function is the adapter package's (python/tritonrl, docs/adapters.md), unchanged: each
task's completions go to /v1/reward as one group and the server's reward comes back per completion.
With --hrd the trainer is the package's HRDGRPOTrainer instead: per-token HRD advantages (plan
tokens alpha·A(R_speedup), the rest A(R_correct)) from /v1/reward's token spans.

Two policies:
  - default: a tiny random Qwen3 (transformers) with a byte-level tokenizer built here, prompted on
    tasks of the built-in suite. It writes no kernel, so every reward is 0 and GRPO's advantages
    are 0: the run proves the plumbing (TRL -> HTTP -> static stage -> verdict -> reward), not
    learning.
  - --model DIR --tasks DIR --prompts JSONL: a Hugging Face checkpoint (e.g. the demo's SFT
    checkpoint, `tritonrl demo --gpu` -> OUT/sft/checkpoint) on the tasks it was trained for, with
    the records' prompts ({"task", "prompt"} per line): rewards then vary within groups.

Per step it records the time split as far as it can be read from outside TRL: the step's wall time
(a trainer callback, the device synchronised), generation (the trainer's `_generate`, timed on the
instance), the reward (the reward function's calls; under --hrd, the rest of
`_generate_and_score_completions`), and update = wall - generation - reward (TRL's own profiling
goes to wandb/mlflow only). bench/train/rl_throughput.py runs it beside `tritonrl train grpo` with
--raw-prompts (train grpo's recorded prompts, already in the chat template) and --keep-order.

TRL, datasets, dill and multiprocess are not on the GPU machine: when `import trl` fails, the
wheels in .whl/ (carried with the run) are installed into a temporary folder first.

  BIN=<folder with tritonrl> OUT=<folder> python3 bench/serve/trl_grpo.py [--steps 3] [--device cuda] [--hrd]
Prints TRL's per-step logs and writes $OUT/trl_grpo.json (per step: reward mean/std, loss, time;
"step_timings": per step wall, generation, reward and update seconds and rollouts).
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
# The adapter package from the checkout (`pip install ./python` elsewhere): standard library only
# until its HRD trainer is used, so the GPU machine needs nothing installed for it.
sys.path.insert(0, os.path.join(ROOT, "python"))
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


class StepTimer:
    """Per optimizer step: wall seconds (from the previous step's end, or the start of training),
    generation seconds (the trainer's `_generate`) and reward seconds, added up by the wrappers."""

    def __init__(self):
        self.steps, self.gen, self.reward, self.last = [], 0.0, 0.0, None

    def sync(self):
        import torch

        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.synchronize()

    def wrap_generate(self, trainer):
        inner = trainer._generate

        def timed(*a, **k):
            self.sync()
            t0 = time.perf_counter()
            out = inner(*a, **k)
            self.sync()
            self.gen += time.perf_counter() - t0
            return out

        trainer._generate = timed

    def callback(self, rollouts_per_step):
        from transformers import TrainerCallback

        timer = self

        class Cb(TrainerCallback):
            def on_train_begin(self, args, state, control, **kwargs):
                timer.sync()
                timer.last = time.perf_counter()

            def on_step_end(self, args, state, control, **kwargs):
                timer.sync()
                now = time.perf_counter()
                wall = now - timer.last
                timer.steps.append({"step": state.global_step, "rollouts": rollouts_per_step,
                                    "wall_seconds": round(wall, 4), "gen_seconds": round(timer.gen, 4),
                                    "reward_seconds": round(timer.reward, 4),
                                    "update_seconds": round(wall - timer.gen - timer.reward, 4)})
                timer.last, timer.gen, timer.reward = now, 0.0, 0.0

        return Cb()


class LoggedReward:
    """The package's TRL reward function (python/tritonrl, docs/adapters.md), unchanged, with each
    call's size, time and mean logged."""

    __name__ = "tritonrl"

    def __init__(self, url, log, timer=None):
        from tritonrl.trl import TritonRLReward

        self.inner, self.log, self.timer = TritonRLReward(url), log, timer

    def __call__(self, prompts, completions, **kwargs):
        t0 = time.time()
        rewards = self.inner(prompts, completions, **kwargs)
        if self.timer:
            self.timer.reward += time.time() - t0
        self.log.append({"completions": len(rewards), "groups": len(set(kwargs["task"])),
                         "seconds": round(time.time() - t0, 3), "reward_mean": sum(rewards) / len(rewards)})
        return rewards


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
    ap.add_argument("--raw-prompts", action="store_true",
                    help="--prompts' prompts are already in the chat template (train grpo's rollouts.jsonl)")
    ap.add_argument("--keep-order", action="store_true",
                    help="take the prompts in file order (no shuffling): step i gets the i-th prompts-per-step")
    ap.add_argument("--lr", type=float, default=1e-5)
    ap.add_argument("--bf16", action="store_true", help="bf16 mixed precision (fp32 weights)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hrd", action="store_true",
                    help="tritonrl.trl.HRDGRPOTrainer: per-token HRD advantages from /v1/reward (alpha 0.1)")
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
        if not args.raw_prompts:
            rows = [{"task": r["task"], "prompt": f"<|im_start|>user\n{r['prompt']}<|im_end|>\n<|im_start|>assistant\n"}
                    for r in rows]
        rows = [{"task": r["task"], "prompt": r["prompt"]} for r in rows]
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
    timer = StepTimer()
    try:
        config = trl.GRPOConfig(
            output_dir=os.path.join(out, "trl_out"),
            per_device_train_batch_size=args.group * args.prompts_per_step,
            num_generations=args.group,
            max_completion_length=args.max_new_tokens,
            max_steps=args.steps,
            learning_rate=args.lr,
            logging_steps=1,
            save_strategy="no",
            report_to=[],
            use_cpu=not args.device.startswith("cuda"),
            bf16=args.bf16,
            seed=args.seed,
            shuffle_dataset=not args.keep_order,
            disable_tqdm=True,
        )
        if args.hrd:
            from tritonrl.trl import HRDGRPOTrainer

            class LoggedHRD(HRDGRPOTrainer):
                def _generate_and_score_completions(self, inputs):
                    t0 = time.time()
                    out = super()._generate_and_score_completions(inputs)
                    # The reward: what the call took beyond generation (timer.gen is this step's so far).
                    timer.reward += time.time() - t0 - timer.gen
                    rows = self.last_hrd_batch
                    outcomes = {}
                    for r in rows:
                        outcomes[r["reply"]["outcome"]] = outcomes.get(r["reply"]["outcome"], 0) + 1
                    calls.append({"completions": len(rows), "groups": len({r["group"] for r in rows}),
                                  "seconds": round(time.time() - t0, 3), "outcomes": outcomes,
                                  "reward_mean": sum(r["reply"]["reward"] for r in rows) / len(rows),
                                  "plan_tokens": sum(e - b for r in rows if r["reply"].get("plan_tokens")
                                                     for b, e in [r["reply"]["plan_tokens"]])})
                    return out

            trainer = LoggedHRD(model=model, args=config, train_dataset=dataset, processing_class=tokenizer,
                                tritonrl=server.url)
        else:
            trainer = trl.GRPOTrainer(model=model, reward_funcs=LoggedReward(server.url, calls, timer), args=config,
                                      train_dataset=dataset, processing_class=tokenizer)
        timer.wrap_generate(trainer)
        trainer.add_callback(timer.callback(args.group * args.prompts_per_step))
        t0 = time.time()
        trainer.train()
        wall = time.time() - t0
    finally:
        rc = server.stop()
    steps = [h for h in trainer.state.log_history if "loss" in h or "reward" in h]
    doc = {"trl": trl.__version__, "transformers": transformers.__version__, "device": args.device,
           "trainer": "tritonrl.trl.HRDGRPOTrainer" if args.hrd else "trl.GRPOTrainer + tritonrl.trl.TritonRLReward",
           "model": args.model or "tiny random Qwen3 (2 layers, hidden 64, byte tokenizer)",
           "steps": steps, "reward_calls": calls, "step_timings": timer.steps, "train_seconds": round(wall, 1), "server_exit": rc}
    with open(os.path.join(out, "trl_grpo.json"), "w") as f:
        json.dump(doc, f, indent=1)
    for i, h in enumerate(steps):
        print(f"step {i + 1}: loss {h.get('loss')} reward {h.get('reward')} reward_std {h.get('reward_std')}")
    for c in calls:
        print(f"reward call: {c['completions']} completions in {c['groups']} groups, {c['seconds']} s, "
              f"mean {c['reward_mean']:.3f}" + (f", outcomes {c['outcomes']}" if "outcomes" in c else ""))
    name = "HRDGRPOTrainer" if args.hrd else "GRPOTrainer"
    print(f"TRL {trl.__version__} {name}: {len(calls)} reward calls, {config.max_steps} steps in {wall:.1f} s")
    if len(calls) < args.steps:
        raise SystemExit(f"only {len(calls)} reward calls for {args.steps} steps")


if __name__ == "__main__":
    main()
