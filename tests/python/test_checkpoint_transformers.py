"""tritonrl checkpoints are complete Hugging Face models (issue 36, point 1), checked with
transformers itself (no mocks): builtin:tiny trained for 2 SFT steps on the CPU, and a 1-step GRPO
run, load with AutoTokenizer, whose eos is <|im_end|> and whose chat template renders exactly
what tritonrl's prompt builder renders for the same messages (`tritonrl generate --print-prompts`,
with and without --no-think; GRPO's rollouts record the prompt its policy saw); GenerationConfig
stops at <|im_end|>; AutoModelForCausalLM loads the weights and generates. Ids come from each checkpoint's own tokenizer (builtin:mini's BPE has other
ids than builtin:tiny's). A model directory's own files (a README, a custom tokenizer_config.json
with its own chat template, a generation_config.json, a tokenizer.json tritonrl would write
differently) are carried unchanged through SFT, a resume and GRPO; stale weight files are not, and
GRPO's prompts are rendered in the model's own template. `generate --model CKPT` renders a
checkpoint's template (tritonrl's own, through the Jinja engine) exactly as the built-in format.
A model whose chat template ends a turn with another token (Gemma's <end_of_turn>) ends its turn
with the token transformers' apply_chat_template puts after an assistant's content."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.path.join(BUILD, "tritonrl")
TASKS = os.path.join(ROOT, "tasks")

pytestmark = pytest.mark.skipif(
    subprocess.run([TRITONRL, "train", "sft", "--help"], capture_output=True).returncode != 0,
    reason="the trainer is built only with libtorch")

SIDE_FILES = ("tokenizer_config.json", "generation_config.json", "special_tokens_map.json")

# Message lists for the chat template: one user turn, a system prompt, reasoning in an earlier
# assistant turn (dropped) and in the turn after the last user turn (kept, rewritten), odd
# newlines and a second </think>, a tool turn, and text that looks like Jinja or is not ASCII.
CONVERSATIONS = [
    [{"role": "user", "content": "Write a Triton kernel for ReLU."}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
    [{"role": "user", "content": "a"},
     {"role": "assistant", "content": "<think>\nplan\n</think>\n\nanswer"},
     {"role": "user", "content": "b"}],
    [{"role": "user", "content": "q"},
     {"role": "assistant", "content": "\n<think>\n\nstep 1\nstep 2\n\n</think>\n\nx</think>y"}],
    [{"role": "user", "content": "q"}, {"role": "assistant", "content": "no reasoning here"},
     {"role": "tool", "content": "{\"ok\": true}"}, {"role": "user", "content": "again"}],
    [{"role": "user", "content": "{{ messages }} {% if x %} \u00e9\u65e5\u672c\n\n  trailing  "}],
]


def train(kind, *args, check=True):
    r = subprocess.run([TRITONRL, "train", kind, "--device", "cpu", "--no-progress",
                        *map(str, args)], capture_output=True, text=True, timeout=500)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def grpo(out, model, *extra):
    return train("grpo", "--model", model, "--tasks", TASKS, "--out", out, "--group", 2,
                 "--tasks-per-step", 1, "--max-new-tokens", 12, "--eval-device", "cpu", "--jobs", 1,
                 "--lr", 1e-3, "--seed", 5, "--steps", 1, *extra)


def sft_data(tmp_path):
    recs = [{"prompt": f"Write kernel {i}: add two vectors.",
             "completion": f"<think>\nload, add, store\n</think>\n\nimport triton  # {i}"}
            for i in range(6)]
    path = tmp_path / "sft.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def token_ids(ckpt):
    tok = json.loads((ckpt / "tokenizer.json").read_text())
    return {a["content"]: a["id"] for a in tok["added_tokens"]}


def tritonrl_prompts(tmp_path, conversations, *flags):
    """tritonrl's own rendering of each message list (the chat template of generate, SFT, GRPO)."""
    path = tmp_path / "messages.jsonl"
    path.write_text("".join(json.dumps({"messages": c}) + "\n" for c in conversations))
    r = subprocess.run([TRITONRL, "generate", "--prompts", str(path), "--print-prompts", *flags],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["prompt_index"] for row in rows] == list(range(len(conversations)))
    return [row["prompt"] for row in rows]


def check_complete_checkpoint(tmp_path, ckpt):
    """What a tritonrl checkpoint must be for transformers; returns the tokenizer."""
    ids = token_ids(ckpt)
    tok = AutoTokenizer.from_pretrained(str(ckpt))
    assert tok.eos_token == "<|im_end|>" and tok.eos_token_id == ids["<|im_end|>"]
    assert tok.pad_token == "<|endoftext|>" and tok.pad_token_id == ids["<|endoftext|>"]
    assert tok.bos_token is None
    assert tok.model_max_length == json.loads((ckpt / "config.json").read_text())["max_position_embeddings"]
    assert tok.convert_tokens_to_ids("<|im_start|>") == ids["<|im_start|>"]
    for think, flags, kwargs in ((True, [], {}), (False, ["--no-think"], {"enable_thinking": False})):
        ours = tritonrl_prompts(tmp_path, CONVERSATIONS, *flags)
        # With --model: the checkpoint's own template, through the Jinja engine.
        own = tritonrl_prompts(tmp_path, CONVERSATIONS, "--model", str(ckpt), *flags)
        theirs = [tok.apply_chat_template(c, tokenize=False, add_generation_prompt=True, **kwargs)
                  for c in CONVERSATIONS]
        for c, a, b, d in zip(CONVERSATIONS, ours, theirs, own):
            assert b == a, (think, c)
            assert d == a, (think, c)
    # Without the generation prompt: the conversation's turns only.
    assert tok.apply_chat_template(CONVERSATIONS[1], tokenize=False) == \
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"
    # Special tokens are single tokens, and skipped on request.
    enc = tok.apply_chat_template(CONVERSATIONS[0], tokenize=True, add_generation_prompt=True,
                                  return_dict=True)["input_ids"]
    assert enc[0] == ids["<|im_start|>"] and ids["<|im_end|>"] in enc
    assert "<|im_start|>" not in tok.decode(enc, skip_special_tokens=True)

    gen = GenerationConfig.from_pretrained(str(ckpt))
    assert isinstance(gen.eos_token_id, list) and gen.eos_token_id[0] == ids["<|im_end|>"]
    assert ids["<|endoftext|>"] in gen.eos_token_id
    assert gen.pad_token_id == ids["<|endoftext|>"]
    assert gen.bos_token_id is None
    assert (gen.do_sample, gen.temperature, gen.top_p, gen.top_k) == (True, 1.0, 1.0, 0)
    stm = json.loads((ckpt / "special_tokens_map.json").read_text())
    assert stm["eos_token"]["content"] == "<|im_end|>" and stm["pad_token"]["content"] == "<|endoftext|>"
    return tok


def test_sft_checkpoints_load_in_transformers(tmp_path):
    data = sft_data(tmp_path)
    out = tmp_path / "tiny"
    train("sft", "--model", "builtin:tiny", "--data", data, "--eval-data", data, "--eval-every", 1,
          "--keep-best", "--steps", 2, "--seed", 1, "--out", out)
    tok = check_complete_checkpoint(tmp_path, out / "checkpoint")
    # OUT/best is a complete checkpoint too.
    assert (out / "best" / "trainer_state.json").exists()
    for name in SIDE_FILES:
        assert (out / "best" / name).read_bytes() == (out / "checkpoint" / name).read_bytes(), name
    # The text SFT trained on is what the template renders for its prompt.
    prompt = json.loads(data.read_text().splitlines()[0])["prompt"]
    assert tok.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                   add_generation_prompt=True) == \
        f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"

    # The model loads too, and greedy generation runs under the checkpoint's generation config.
    model = AutoModelForCausalLM.from_pretrained(str(out / "checkpoint"))
    enc = tok.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                  return_tensors="pt", return_dict=True)
    new = model.generate(**enc, max_new_tokens=4, do_sample=False)
    assert new.shape[1] > enc["input_ids"].shape[1]

    # builtin:mini learns its own BPE: other ids, looked up in its own tokenizer.
    mini = tmp_path / "mini"
    train("sft", "--model", "builtin:mini", "--data", data, "--steps", 1, "--out", mini)
    assert token_ids(mini / "checkpoint")["<|im_end|>"] != token_ids(out / "checkpoint")["<|im_end|>"]
    check_complete_checkpoint(tmp_path, mini / "checkpoint")


def test_grpo_checkpoint_loads_in_transformers_and_renders_the_policys_prompt(tmp_path):
    out = tmp_path / "grpo"
    grpo(out, "builtin:tiny")
    tok = check_complete_checkpoint(tmp_path, out / "checkpoint")
    rollouts = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    head, tail = "<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"
    for r in rollouts:
        assert r["prompt"].startswith(head) and r["prompt"].endswith(tail)
        task_prompt = r["prompt"][len(head):-len(tail)]
        assert tok.apply_chat_template([{"role": "user", "content": task_prompt}], tokenize=False,
                                       add_generation_prompt=True) == r["prompt"]


# A chat template and configs of the user's own: they must reach every checkpoint unchanged.
CUSTOM_TEMPLATE = ("{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}"
                   "{% if add_generation_prompt %}[assistant] {% endif %}")
CUSTOM_TOKENIZER_CONFIG = {"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "<|im_end|>",
                           "pad_token": "<|endoftext|>", "model_max_length": 123,
                           "chat_template": CUSTOM_TEMPLATE, "clean_up_tokenization_spaces": False}
CUSTOM_GENERATION_CONFIG = {"do_sample": True, "eos_token_id": [258], "temperature": 0.6,
                            "top_p": 0.95, "top_k": 20}


def make_model_dir(tmp_path):
    """A Hugging Face model directory of builtin:tiny's shape with files of the user's own."""
    seed = tmp_path / "seed"
    train("sft", "--model", "builtin:tiny", "--data", sft_data(tmp_path), "--steps", 1,
          "--out", seed)
    mine = tmp_path / "mine"
    mine.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copy(seed / "checkpoint" / name, mine / name)
    # The same tokenizer, written as tritonrl would not write it (indent, key order, an NFC
    # normalizer tritonrl reads as the identity): only a verbatim copy keeps these bytes.
    tj = json.loads((seed / "checkpoint" / "tokenizer.json").read_text())
    tj["normalizer"] = {"type": "NFC"}
    (mine / "tokenizer.json").write_text(json.dumps(tj, indent=2, sort_keys=True))
    (mine / "tokenizer_config.json").write_text(json.dumps(CUSTOM_TOKENIZER_CONFIG, indent=4))
    (mine / "generation_config.json").write_text(json.dumps(CUSTOM_GENERATION_CONFIG))
    (mine / "README.md").write_text("# my model\n\nTrained with care.\n")
    (mine / "extra.bin.txt").write_bytes(b"\x00\xffnot utf-8\r\n")
    (mine / "pytorch_model.bin").write_bytes(b"stale weights")  # not carried: tritonrl's weights
    (mine / "original").mkdir()
    (mine / "original" / "params.json").write_text("{}")  # subdirectories are not carried
    return mine


CARRIED = ("tokenizer.json", "tokenizer_config.json", "generation_config.json", "README.md",
           "extra.bin.txt")


def assert_carried(mine, ckpt):
    for name in CARRIED:
        assert (ckpt / name).read_bytes() == (mine / name).read_bytes(), (ckpt, name)
    assert not (ckpt / "pytorch_model.bin").exists() and not (ckpt / "original").exists()
    # The input has its own tokenizer config, so no special-tokens map is generated beside it
    # (transformers would take the map's tokens over the config's).
    assert not (ckpt / "special_tokens_map.json").exists()
    tok = AutoTokenizer.from_pretrained(str(ckpt))
    assert tok.eos_token == json.loads((mine / "tokenizer_config.json").read_text()).get("eos_token")
    assert tok.model_max_length == 123
    assert tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False,
                                   add_generation_prompt=True) == "[user] hi\n[assistant] "
    gen = GenerationConfig.from_pretrained(str(ckpt))
    assert (gen.temperature, gen.top_p, gen.top_k, gen.eos_token_id) == (0.6, 0.95, 20, [258])


def test_model_directory_files_are_carried_through_sft_resume_and_grpo(tmp_path):
    mine = make_model_dir(tmp_path)
    data = sft_data(tmp_path)
    # SFT stopped after step 1 and resumed: both checkpoints carry the files (the resumed run
    # carries them from the checkpoint), and the weights equal an uninterrupted run's.
    args = ["--model", mine, "--data", data, "--steps", 2, "--seed", 1]
    full, part = tmp_path / "full", tmp_path / "part"
    train("sft", *args, "--out", full)
    assert_carried(mine, full / "checkpoint")
    train("sft", *args, "--out", part, "--stop-after", 1)
    assert_carried(mine, part / "checkpoint")
    train("sft", "--data", data, "--out", part, "--resume", part / "checkpoint")
    assert_carried(mine, part / "checkpoint")
    assert (part / "checkpoint" / "model.safetensors").read_bytes() == \
        (full / "checkpoint" / "model.safetensors").read_bytes()
    # GRPO from the SFT checkpoint carries them on, and its prompts are in the model's own
    # template (carried by the checkpoint), as transformers renders it.
    rl = tmp_path / "rl"
    grpo(rl, full / "checkpoint")
    assert_carried(mine, rl / "checkpoint")
    tok = AutoTokenizer.from_pretrained(str(rl / "checkpoint"))
    rollouts = [json.loads(line) for line in (rl / "rollouts.jsonl").read_text().splitlines()]
    assert rollouts
    for r in rollouts:
        head, tail = "[user] ", "\n[assistant] "
        assert r["prompt"].startswith(head) and r["prompt"].endswith(tail), r["prompt"][:80]
        task_prompt = r["prompt"][len(head):-len(tail)]
        assert tok.apply_chat_template([{"role": "user", "content": task_prompt}], tokenize=False,
                                       add_generation_prompt=True) == r["prompt"]
    # A plain model directory without any of them gets the generated files.
    plain = tmp_path / "plain"
    plain.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copy(mine / name, plain / name)
    shutil.copy(full / "checkpoint" / "tokenizer.json", plain / "tokenizer.json")
    out = tmp_path / "from_plain"
    train("sft", "--model", plain, "--data", data, "--steps", 1, "--out", out)
    assert sorted(p.name for p in (out / "checkpoint").iterdir()) == sorted(
        ["config.json", "model.safetensors", "tokenizer.json", "optimizer.safetensors",
         "trainer_state.json", *SIDE_FILES])
    check_complete_checkpoint(tmp_path, out / "checkpoint")


# google/gemma-2-2b-it's chat template, verbatim (shared with the C++ tests): an assistant turn
# ends with <end_of_turn>, while the tokenizer's eos is <eos>, the document end.
GEMMA_TEMPLATE = pathlib.Path(ROOT, "tests", "model", "chat_templates", "gemma2_2b_it.jinja").read_text()
GEMMA_TOKENS = ["<pad>", "<eos>", "<bos>", "<start_of_turn>", "<end_of_turn>"]


def make_gemma_dir(tmp_path):
    """builtin:tiny's weights with a Gemma-style tokenizer (its five added tokens renamed, ids
    256..260), tokenizer_config.json and chat_template.jinja; config.json's eos is <eos>."""
    seed = tmp_path / "seed"
    train("sft", "--model", "builtin:tiny", "--data", sft_data(tmp_path), "--steps", 1,
          "--out", seed)
    gemma = tmp_path / "gemma"
    gemma.mkdir()
    shutil.copy(seed / "checkpoint" / "model.safetensors", gemma / "model.safetensors")
    config = json.loads((seed / "checkpoint" / "config.json").read_text())
    config["eos_token_id"] = 256 + GEMMA_TOKENS.index("<eos>")
    (gemma / "config.json").write_text(json.dumps(config))
    tj = json.loads((seed / "checkpoint" / "tokenizer.json").read_text())
    for added, content in zip(sorted(tj["added_tokens"], key=lambda a: a["id"]), GEMMA_TOKENS):
        added["content"], added["special"] = content, True
    (gemma / "tokenizer.json").write_text(json.dumps(tj))
    (gemma / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<bos>", "eos_token": "<eos>",
         "pad_token": "<pad>", "clean_up_tokenization_spaces": False}))
    (gemma / "chat_template.jinja").write_text(GEMMA_TEMPLATE)
    return gemma


def test_a_gemma_style_model_ends_its_turn_where_transformers_renders_it(tmp_path):
    """Issue 36, bring your own model: the token tritonrl ends a turn with (SFT's last token,
    GRPO's and generate's stop, the generated generation_config.json's first eos) is the special
    token transformers' apply_chat_template puts right after an assistant turn's content."""
    gemma = make_gemma_dir(tmp_path)
    tok = AutoTokenizer.from_pretrained(str(gemma))
    marker = "the-assistant-content"
    text = tok.apply_chat_template([{"role": "user", "content": "Hi"},
                                    {"role": "assistant", "content": marker}], tokenize=False)
    tail = tok(text[text.rindex(marker) + len(marker):], add_special_tokens=False)["input_ids"]
    special = {i for i, a in tok.added_tokens_decoder.items() if a.special}
    eot = next(i for i in tail if i in special)
    assert tok.convert_ids_to_tokens(eot) == "<end_of_turn>" and eot != tok.eos_token_id

    data = sft_data(tmp_path)
    out = tmp_path / "sft"
    train("sft", "--model", gemma, "--data", data, "--steps", 1, "--out", out)
    ckpt = out / "checkpoint"
    # The input has no generation_config.json: the generated one stops at the end of turn
    # first, then at config.json's eos (the document end). It has its own tokenizer config, so
    # no special_tokens_map.json is generated: the tokenizer keeps the model's eos and pad.
    gen = GenerationConfig.from_pretrained(str(ckpt))
    assert gen.eos_token_id == [eot, tok.eos_token_id]
    assert not (ckpt / "special_tokens_map.json").exists()
    trained_tok = AutoTokenizer.from_pretrained(str(ckpt))
    assert (trained_tok.eos_token, trained_tok.pad_token) == ("<eos>", "<pad>")
    for name in ("tokenizer_config.json", "chat_template.jinja", "tokenizer.json"):
        assert (ckpt / name).read_bytes() == (gemma / name).read_bytes(), name

    # GRPO from the checkpoint: its tokenizer has no <|im_end|>; the prompts are in Gemma's
    # template as transformers renders them.
    rl = tmp_path / "rl"
    grpo(rl, ckpt)
    rollouts = [json.loads(line) for line in (rl / "rollouts.jsonl").read_text().splitlines()]
    assert rollouts
    head, tail = "<bos><start_of_turn>user\n", "<end_of_turn>\n<start_of_turn>model\n"
    for r in rollouts:
        assert r["prompt"].startswith(head) and r["prompt"].endswith(tail), r["prompt"][:80]
        task_prompt = r["prompt"][len(head):-len(tail)]
        assert tok.apply_chat_template([{"role": "user", "content": task_prompt}], tokenize=False,
                                       add_generation_prompt=True) == r["prompt"]
