"""The `tritonrl` Python package (python/tritonrl, docs/adapters.md) against a real `tritonrl serve`
($TRITONRL_BIN, CPU, TRITON_INTERPRET=1), real TRL 1.16 and a tiny random Qwen3 made here.

- TRL's own GRPOTrainer runs 2 steps with `TritonRLReward` on completions the model samples.
- `HRDGRPOTrainer` runs 2 steps on scripted completions (a plan and a correct kernel, a plan and a
  wrong one, junk, ...: the random model would only ever write junk, whose advantages are all 0).
  The per-token advantages that reach TRL's loss equal `tritonrl advantages` on the same verdicts,
  with the plan's token span known from how each completion was assembled, not from the server.
- The verl reward function and HRD estimator, called with verl's argument shapes (verl itself is
  not installed: its 0.9.1 wheel pins transformers 5.10 and pulls in ray).
- Token offsets of sampled ids against the tokenizer's own offsets; error paths; `pip install`.
"""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TRITONRL_BIN", str(ROOT / "build" / "tritonrl"))
sys.path.insert(0, str(ROOT / "python"))

# Imported, not skipped when absent: python/requirements.txt pins TRL for these tests.
import torch  # noqa: E402
import trl  # noqa: E402

from tritonrl import ServerUnavailable, TritonRLClient, TritonRLError  # noqa: E402
from tritonrl.tokens import _prefix_decode_offsets, text_and_offsets  # noqa: E402

pytestmark = pytest.mark.skipif(not os.access(BIN, os.X_OK), reason="needs the built tritonrl ($TRITONRL_BIN)")

TASK = "level1/1_ReLU"
HONEST = (ROOT / "tests/corpus/legit/relu_basic.py").read_text()
WRONG = (ROOT / "tests/corpus/hacks/rt_input_passthrough.py").read_text()
PLAN = "One program per block of 1024 elements: load x, keep max(x, 0), store. Masked tail; é→ü."
JUNK = "I cannot write this kernel 🙂"


# ---- the server -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    state = tmp_path_factory.mktemp("serve")
    port_file = state / "port"
    log = open(state / "serve.log", "wb")
    proc = subprocess.Popen([BIN, "serve", "--tasks", str(ROOT / "tasks"), "--device", "cpu", "--jobs", "2",
                             "--port", "0", "--port-file", str(port_file), "--state-dir", str(state),
                             "--stage-timeout", "120", "--request-timeout", "600"], stdout=log, stderr=log)
    deadline = time.time() + 120
    while not port_file.exists():
        assert proc.poll() is None and time.time() < deadline, (state / "serve.log").read_text()[-3000:]
        time.sleep(0.1)
    url = "http://127.0.0.1:%d" % int(port_file.read_text())
    yield url
    proc.terminate()
    assert proc.wait(timeout=120) == 0, (state / "serve.log").read_text()[-3000:]
    log.close()


def reward_requests(url):
    """Answered POST /v1/reward requests, from the server's own counters."""
    import urllib.request

    with urllib.request.urlopen(url + "/metrics", timeout=30) as resp:
        text = resp.read().decode()
    for line in text.splitlines():
        if line.startswith('tritonrl_serve_requests_total{endpoint="reward",status="200"}'):
            return int(float(line.split()[-1]))
    return 0


# ---- a tokenizer with merges and Qwen3's <think> tokens, and a tiny random Qwen3 ----------------

@pytest.fixture(scope="module")
def tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=700, special_tokens=["<eos>", "<pad>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([HONEST, WRONG, PLAN, JUNK] * 4, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<eos>", pad_token="<pad>")
    # Qwen3 has <think> and </think> as added, non-special tokens: decoded as text, never split.
    fast.add_tokens(["<think>", "</think>"])
    return fast


def tiny_qwen3(vocab_size):
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    cfg = Qwen3Config(vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=2048,
                      tie_word_embeddings=True)
    return Qwen3ForCausalLM(cfg)


def grpo_config(tmp_path, **kw):
    base = dict(output_dir=str(tmp_path / "trl"), learning_rate=1e-3, logging_steps=1, save_strategy="no",
                report_to=[], use_cpu=True, bf16=False, seed=0, max_steps=2)
    base.update(kw)
    return trl.GRPOConfig(**base)


# ---- token offsets ------------------------------------------------------------------------------

OFFSET_TEXTS = ["def relu(x):\n    return x", "plan: é, 中文, 🙂 and tabs\tto  end", PLAN + "\n" + JUNK]


def test_offsets_of_canonical_ids_match_the_tokenizers(tokenizer):
    for text in OFFSET_TEXTS:
        enc = tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
        got_text, got = text_and_offsets(tokenizer, enc["input_ids"])
        assert got_text == text
        ref = [list(o) for o in enc["offset_mapping"]]
        # The tokenizer gives every byte-piece of a split character the whole character; ours gives
        # it to the piece that completes it (earlier pieces are empty). Elsewhere they agree.
        for i, (g, r) in enumerate(zip(got, ref)):
            shared = i + 1 < len(ref) and ref[i + 1][0] < r[1]
            assert g == r or (shared and g == [r[0], r[0]]), (text, i, g, r)
        assert got[-1][1] == len(text)


def test_offsets_of_sampled_ids_tile_the_decoded_text(tokenizer):
    # A sequence no encoder would produce (pieces tokenized apart, one token split in two bytes).
    ids = []
    for piece in ["<think>", PLAN, "</think>", "\n```python\n", "x", " = 1", "```"]:
        ids += tokenizer(piece, add_special_tokens=False)["input_ids"]
    ids.append(tokenizer.eos_token_id)
    text, offsets = text_and_offsets(tokenizer, ids)
    assert text == "<think>" + PLAN + "</think>\n```python\nx = 1```"
    assert [b for b, _ in offsets[1:]] == [e for _, e in offsets[:-1]] and offsets[0][0] == 0
    assert offsets[-1] == [len(text), len(text)]  # <eos>: skipped by the decode, no characters
    for tid, (b, e) in zip(ids, offsets):
        piece = tokenizer.decode([tid], skip_special_tokens=True)
        if "\ufffd" not in piece:
            assert text[b:e] == piece
    # The decoder-agnostic path gives the same offsets.
    assert _prefix_decode_offsets(tokenizer, ids, text) == offsets


# ---- TRL: the reward function in TRL's own trainer ----------------------------------------------

def test_trl_grpo_trainer_two_steps_with_the_reward_function(server, tokenizer, tmp_path):
    from datasets import Dataset

    from tritonrl.trl import TritonRLReward

    rows = [{"task": t, "prompt": f"Write ModelNew with Triton kernels for {t}:\n"}
            for t in ["level1/1_ReLU", "level1/2_AddBroadcast"]]
    before = reward_requests(server)
    config = grpo_config(tmp_path, per_device_train_batch_size=4, num_generations=2, max_completion_length=12)
    trainer = trl.GRPOTrainer(model=tiny_qwen3(len(tokenizer)), reward_funcs=TritonRLReward(server), args=config,
                              train_dataset=Dataset.from_list(rows), processing_class=tokenizer)
    trainer.train()
    assert trainer.state.global_step == 2
    logged = [h for h in trainer.state.log_history if "rewards/tritonrl/mean" in h]
    assert len(logged) == 2 and all("tritonrl/correct_rate" in h for h in logged), trainer.state.log_history
    # Each step is one pass over the two prompts: two tasks, one request each.
    assert reward_requests(server) - before == 4


# ---- TRL: HRD's per-token advantages ------------------------------------------------------------

def assemble(tokenizer, plan, code):
    """Completion ids built piece by piece, and the plan's token span [begin, end) or None."""
    enc = lambda s: tokenizer(s, add_special_tokens=False)["input_ids"]  # noqa: E731
    ids, span = [], None
    if plan is not None:
        ids += enc("<think>")
        span = [len(ids), len(ids) + len(enc(plan))]
        ids += enc(plan) + enc("</think>")
    ids += enc("\n```python\n" + code + "```\n") if code != JUNK else enc(code)
    return ids + [tokenizer.eos_token_id], span


# Two prompts of the same task whose groups hold different mixes, so that the same completion gets
# different advantages in each: advantages follow TRL's groups, not the task id.
SCRIPTS = {"A": [(PLAN, HONEST), (PLAN, WRONG), (PLAN, JUNK), (None, HONEST)],
           "B": [(PLAN, HONEST), (None, JUNK), (PLAN, JUNK), (None, WRONG)]}


def cli_advantages(rows, tmp_path):
    """`tritonrl advantages` on the verdicts the server gave, with the plan spans from `assemble`:
    {(generation, index): [advantage per token]}."""
    lines = []
    for key, r in rows.items():
        v = r["reply"]
        lines.append({"group": f"{key[0]}/{r['group']}", "valid": v["valid"], "correct": v["correct"],
                      "speedup": v["speedup"], "flags": v["flags"], "num_tokens": len(r["completion_ids"]),
                      "plan_span": r["plan_span"], "key": list(key)})
    path = tmp_path / "rollouts.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = subprocess.run([BIN, "advantages", "--in", str(path), "--mode", "hrd", "--alpha", "0.1"],
                         capture_output=True, text=True, check=True).stdout
    expected = {}
    for line in out.splitlines():
        x = json.loads(line)
        row = []
        for b, e, a in x["token_spans"]:
            row += [a] * (e - b)
        expected[tuple(x["key"])] = row
    return expected


def test_hrd_trainer_token_advantages_equal_tritonrl_advantages(server, tokenizer, tmp_path, monkeypatch):
    from datasets import Dataset

    from tritonrl.trl import HRDGRPOTrainer

    group = 4
    built = {(name, k): assemble(tokenizer, plan, code)
             for name, script in SCRIPTS.items() for k, (plan, code) in enumerate(script)}

    def rollout_func(prompts, trainer):
        # TRL hands over each prompt `group` times in a row: the k-th copy gets script k.
        name = [p[0] for p in prompts]
        comp = [built[(name[i], i % group)][0] for i in range(len(prompts))]
        prompt_ids = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in prompts]
        return {"prompt_ids": prompt_ids, "completion_ids": comp, "logprobs": None}

    generations, seen = [], []

    class Observed(HRDGRPOTrainer):
        def _generate_and_score_completions(self, inputs):
            out = super()._generate_and_score_completions(inputs)
            generations.append([dict(r, prompt=x["prompt"]) for r, x in zip(self.last_hrd_batch, inputs)])
            return out

        def _compute_loss(self, model, inputs):
            seen.append({k: inputs[k].detach().clone() for k in ("prompt_ids", "completion_ids", "advantages")})
            return super()._compute_loss(model, inputs)

    model = tiny_qwen3(len(tokenizer))
    before = [p.detach().clone() for p in model.parameters()]
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is marked experimental
    config = grpo_config(tmp_path, per_device_train_batch_size=2 * group, num_generations=group,
                         max_completion_length=1024)
    trainer = Observed(model=model, args=config, processing_class=tokenizer, rollout_func=rollout_func,
                       train_dataset=Dataset.from_list([{"task": TASK, "prompt": "A: write relu"},
                                                        {"task": TASK, "prompt": "B: write relu"}]),
                       tritonrl=server, alpha=0.1)
    trainer.train()
    assert trainer.state.global_step == 2 and len(generations) == 2

    rows = {}
    for gen, batch in enumerate(generations):
        assert len(batch) == 2 * group
        for i, r in enumerate(batch):
            ids, span = built[(r["prompt"][0], i % group)]
            assert r["completion_ids"] == ids and r["task"] == TASK
            rows[(gen, i)] = dict(r, plan_span=span)
    outcomes = {(r["prompt"][0], k % group): r["reply"]["outcome"] for (g, k), r in rows.items()}
    assert outcomes[("A", 0)] == "correct" and outcomes[("A", 1)] == "incorrect", outcomes
    assert outcomes[("A", 2)].startswith("invalid"), outcomes

    expected = cli_advantages(rows, tmp_path)
    for key, r in rows.items():
        # Both sides are doubles from the same src/rl arithmetic: equal to rounding.
        assert len(r["token_advantages"]) == len(expected[key])
        assert max(abs(a - b) for a, b in zip(r["token_advantages"], expected[key])) < 1e-9, key
    # The signal is not trivial: in group A the plan of the correct kernel gets alpha·A(R_speedup),
    # 0 on the CPU (no timing), while its code tokens get A(R_correct) > 0; group B disagrees with A.
    a0 = rows[(0, [k for (g, k), r in rows.items() if g == 0 and r["prompt"][0] == "A" and k % group == 0][0])]
    b, e = a0["plan_span"]
    assert set(a0["token_advantages"][b:e]) == {0.0} and a0["token_advantages"][0] > 0.5
    adv_of = {(r["prompt"][0], k % group): r["token_advantages"][0] for (g, k), r in rows.items() if g == 0}
    assert adv_of[("A", 0)] != adv_of[("B", 0)]

    # What TRL's loss consumed: (B, T) rows equal to the expected advantages (float32), 0 past the end.
    by_tokens = {}
    for key, r in rows.items():
        prompt_ids = tuple(tokenizer(r["prompt"], add_special_tokens=False)["input_ids"])
        by_tokens.setdefault((key[0], prompt_ids, tuple(r["completion_ids"])), expected[key])
    checked = 0
    for step, batch in enumerate(seen):
        assert batch["advantages"].dim() == 2 and batch["advantages"].shape == batch["completion_ids"].shape
        for i in range(batch["completion_ids"].size(0)):
            prompt = tuple(t for t in batch["prompt_ids"][i].tolist() if t != tokenizer.pad_token_id)
            comp = batch["completion_ids"][i].tolist()
            n = comp.index(tokenizer.eos_token_id) + 1
            want = torch.tensor(by_tokens[(step, prompt, tuple(comp[:n]))], dtype=torch.float32)
            assert torch.allclose(batch["advantages"][i, :n], want, atol=1e-6, rtol=0)
            assert not batch["advantages"][i, n:].any()
            checked += 1
    assert checked == 2 * 2 * group
    assert any(not torch.equal(p, q) for p, q in zip(before, model.parameters())), "no parameter moved"


# ---- verl: reward function and advantage estimator (verl's argument shapes) --------------------

def test_verl_compute_score_and_hrd_estimator(server, tokenizer, tmp_path):
    import numpy as np

    from tritonrl.verl import compute_score, make_hrd_estimator

    client = TritonRLClient(server)
    text = "<think>" + PLAN + "</think>\n```python\n" + HONEST + "```\n"
    got = compute_score("tritonrl", text, TASK, None, client=client)
    assert got == {"score": 0.3, "r_correct": 1.0, "r_speedup": 0.0, "valid": 1.0, "correct": 1.0}
    assert compute_score("tritonrl", JUNK, None, {"task": TASK}, client=client)["valid"] == 0.0

    script = SCRIPTS["B"] + SCRIPTS["A"]
    built = [assemble(tokenizer, plan, code) for plan, code in script]
    width = max(len(ids) for ids, _ in built) + 3
    responses = torch.full((len(built), width), tokenizer.pad_token_id)
    mask = torch.zeros((len(built), width), dtype=torch.long)
    for i, (ids, _) in enumerate(built):
        responses[i, :len(ids)] = torch.tensor(ids)
        mask[i, :len(ids)] = 1
    uids = np.array(["u1"] * 4 + ["u0"] * 4, dtype=object)
    non_tensor = {"reward_model": np.array([{"ground_truth": TASK, "style": "rule"}] * 8, dtype=object),
                  "extra_info": np.array([{} for _ in range(8)], dtype=object)}
    estimator = make_hrd_estimator(tokenizer, client=client)
    with pytest.raises(TypeError, match="gdpo"):
        estimator(token_level_rewards=torch.zeros(8, width), response_mask=mask, index=uids, config=None)
    adv, returns = estimator(token_level_rewards=torch.zeros(8, width), response_mask=mask, index=uids,
                             config={"norm_adv_by_std_in_grpo": True}, non_tensor_batch=non_tensor,
                             batch={"responses": responses})
    assert adv.shape == (8, width) and torch.equal(adv, returns)

    rows = {}
    for i, (ids, span) in enumerate(built):
        r = client.reward(TASK, [{"output": text_and_offsets(tokenizer, ids)[0]}])["rollouts"][0]
        rows[(0, i)] = {"group": uids[i], "reply": r, "completion_ids": ids, "plan_span": span}
    expected = cli_advantages(rows, tmp_path)
    for i, (ids, _) in enumerate(built):
        want = torch.tensor(expected[(0, i)], dtype=torch.float32)
        assert torch.allclose(adv[i, :len(ids)], want, atol=1e-6, rtol=0), i
        assert not adv[i, len(ids):].any()


# ---- errors -------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_reward_errors_are_clear(server):
    from tritonrl.trl import TritonRLReward

    down = TritonRLReward(TritonRLClient("http://127.0.0.1:%d" % free_port(), retries=1, backoff=0.05))
    with pytest.raises(ServerUnavailable, match="no reply from tritonrl serve"):
        down(prompts=["p"], completions=["x"], task=[TASK])

    reward = TritonRLReward(server)
    with pytest.raises(TritonRLError) as err:
        reward(prompts=["p"], completions=["x"], task=["level9/no_such_task"])
    assert err.value.status == 400 and err.value.code == "unknown_task"
    assert "level9/no_such_task" in str(err.value) and "/v1/reward" in str(err.value)
    with pytest.raises(KeyError, match="'task'"):
        reward(prompts=["p"], completions=["x"], problem=[TASK])
    # Chat-format completions are read from the last message.
    assert reward(prompts=["p"], completions=[[{"role": "assistant", "content": "x"}]], task=[TASK]) == [0.0]


# ---- the package installs with pip and imports without torch ------------------------------------

def test_pip_install_and_import_without_torch(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(ROOT / "python" / "pyproject.toml", src)
    shutil.copytree(ROOT / "python" / "tritonrl", src / "tritonrl")
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(target), str(src)], check=True)
    assert (target / "tritonrl" / "client.py").exists() and not (target / "tritonrl_runner").exists()
    probe = ("import sys, tritonrl, tritonrl.trl, tritonrl.verl, tritonrl.hrd; "
             "from tritonrl.trl import TritonRLReward; "
             "print(tritonrl.__file__); print(sorted(m for m in ('torch', 'trl', 'transformers', 'numpy') "
             "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(target)},
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0].startswith(str(target)) and out[1] == "[]", out
