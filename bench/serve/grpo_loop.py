"""Three GRPO steps of a tiny random Qwen3 (transformers) whose rewards and TritonRL HRD token
advantages come from `tritonrl serve`'s POST /v1/reward (H200).

TRL is not installed on the GPU machine, so this is the plain PyTorch loop the issue allows: per
step, for each task, G completions are sampled from the policy; a random model writes no kernel, so
to give the group a signal one sampled completion is replaced by the task's honest solution and one
by a hack from the corpus (off-policy, as a demonstration would be). The server scores the group,
returns R_correct/R_speedup, the HRD advantages and each completion's token spans from the token
offsets we send (a byte-level tokenizer of our own: one token per UTF-8 byte, offsets in code
points); the loss is -mean over tokens of advantage * log p(token), one optimizer step per step.

  BIN=build OUT=/tmp/out python3 bench/serve/grpo_loop.py [--steps 3] [--group 4] [--device cuda]
Prints one line per step and writes $OUT/grpo_loop.json.
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Server, bench_dirs  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TASKS = {
    "level1/1_ReLU": ("solutions/level1/1_ReLU.py", "tests/corpus/hacks/rt_input_passthrough.py"),
    "level1/2_AddBroadcast": ("solutions/level1/2_AddBroadcast.py",
                              "tests/corpus/hacks/decoy_kernel_plus_torch_matmul.py"),
}
BOS, EOS, PAD = 256, 257, 258
VOCAB = 260


def encode(text):
    """One token per UTF-8 byte; offsets [begin, end) in code points of `text`."""
    ids, offsets = [], []
    for ci, ch in enumerate(text):
        for b in ch.encode("utf-8"):
            ids.append(b)
            offsets.append([ci, ci + 1])
    return ids, offsets


def decode(ids):
    return bytes(i for i in ids if i < 256).decode("utf-8", errors="replace")


def read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--group", type=int, default=4)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--max-new-tokens", type=int, default=64)
    args = ap.parse_args()
    bin_dir, out, tmp = bench_dirs()

    from transformers import Qwen3Config, Qwen3ForCausalLM
    torch.manual_seed(0)
    cfg = Qwen3Config(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                      max_position_embeddings=8192, bos_token_id=BOS, eos_token_id=EOS,
                      pad_token_id=PAD, tie_word_embeddings=True)
    model = Qwen3ForCausalLM(cfg).to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    device_flag = "cuda" if args.device.startswith("cuda") else "cpu"
    server = Server(bin_dir, os.path.join(tmp, "state"),
                    ["--tasks", os.path.join(ROOT, "tasks"), "--device", device_flag, "--jobs", "8"],
                    os.path.join(out, "grpo_serve.log"))
    log = []
    try:
        for step in range(args.steps):
            t_step = time.time()
            batch_ids, batch_adv, batch_prompt_len = [], [], []
            step_rewards, reward_seconds = {}, 0.0
            for task, (solution, hack) in TASKS.items():
                prompt = "Write a Triton kernel for %s.\n" % task
                p_ids = [BOS] + encode(prompt)[0]
                model.eval()
                with torch.no_grad():
                    gen = model.generate(torch.tensor([p_ids], device=args.device),
                                         do_sample=True, temperature=1.0,
                                         max_new_tokens=args.max_new_tokens,
                                         num_return_sequences=args.group, pad_token_id=PAD,
                                         eos_token_id=EOS)
                texts = [decode(g[len(p_ids):].tolist()) for g in gen]
                texts[0] = "<think>one program per block</think>\n```python\n" + read(os.path.join("tasks", solution)) + "```\n"
                texts[1] = "```python\n" + read(hack) + "```\n"
                encoded = [encode(t) for t in texts]
                t0 = time.time()
                r = server.post("/v1/reward", {
                    "task": task,
                    "rollouts": [{"id": str(i), "output": t, "token_offsets": enc[1]}
                                 for i, (t, enc) in enumerate(zip(texts, encoded))],
                    "advantages": {"mode": "hrd"}})
                reward_seconds += time.time() - t0
                step_rewards[task] = [(x["outcome"], x["r_correct"], round(x["adv_code"], 4),
                                       round(x["adv_plan"], 4)) for x in r["rollouts"]]
                for (ids, _), ro in zip(encoded, r["rollouts"]):
                    adv = torch.zeros(len(ids))
                    for b, e, a in ro["token_spans"]:
                        adv[b:e] = a
                    batch_ids.append(p_ids + ids + [EOS])
                    batch_adv.append(torch.cat([adv, torch.zeros(1)]))
                    batch_prompt_len.append(len(p_ids))
            # One policy-gradient step: -sum(A_t * log p(token_t)) / tokens.
            model.train()
            L = max(len(x) for x in batch_ids)
            ids = torch.full((len(batch_ids), L), PAD, dtype=torch.long)
            mask = torch.zeros(len(batch_ids), L)
            adv = torch.zeros(len(batch_ids), L)
            for i, (x, a, pl) in enumerate(zip(batch_ids, batch_adv, batch_prompt_len)):
                ids[i, :len(x)] = torch.tensor(x)
                mask[i, pl:len(x)] = 1
                adv[i, pl:len(x)] = a
            ids, mask, adv = ids.to(args.device), mask.to(args.device), adv.to(args.device)
            logits = model(input_ids=ids, attention_mask=(ids != PAD).long()).logits[:, :-1]
            logp = torch.log_softmax(logits.float(), -1).gather(-1, ids[:, 1:, None])[..., 0]
            m, a = mask[:, 1:], adv[:, 1:]
            loss = -(a * logp * m).sum() / m.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            entry = {"step": step, "loss": loss.item(), "reward_seconds": round(reward_seconds, 2),
                     "step_seconds": round(time.time() - t_step, 2), "rollouts": step_rewards}
            log.append(entry)
            print("grpo step %d: loss %.5f, /v1/reward %.1f s, step %.1f s, %s" % (
                step, entry["loss"], reward_seconds, entry["step_seconds"],
                {t: [o for o, *_ in v] for t, v in step_rewards.items()}), flush=True)
    finally:
        rc = server.stop()
    json.dump({"steps": log, "server_exit": rc}, open(os.path.join(out, "grpo_loop.json"), "w"),
              indent=1)
    ok = all(e["rollouts"][t][0][1] == 1.0 and e["rollouts"][t][1][1] == 0.0
             for e in log for t in TASKS)
    print("grpo loop: %d steps, honest rollouts rewarded and hacks not: %s" % (len(log), ok))
    sys.exit(0 if ok and rc == 0 else 1)


if __name__ == "__main__":
    main()
