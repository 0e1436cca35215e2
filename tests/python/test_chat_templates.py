"""A model's own chat template, rendered by tritonrl (llama.cpp's Jinja engine,
src/model/chat_template.h), gives exactly what transformers' apply_chat_template(tokenize=False,
add_generation_prompt=True) gives for the same messages, with and without enable_thinking=False.

Templates (tests/python/chat_templates): Qwen3's, Llama 3.1's and Mistral Nemo's (raise_exception
on roles that do not alternate), DeepSeek-R1-Distill's (namespace, reads enable_thinking
undefined as false), Gemma 2's (raises on a system turn), as the model vendors ship them (llama.cpp's
models/templates, extracted from the pinned archive at configure time: see
third_party/llama_jinja/CMakeLists.txt; the repository keeps no copy), and features.jinja, written
here (a macro, a loop over tools,
tojson, namespace counters, loop variables, string methods). Each goes into a model directory the
way transformers finds it: chat_template.jinja, or tokenizer_config.json's "chat_template".

tritonrl renders through `tritonrl generate --model DIR --print-prompts` (no weights needed).
A conversation a template refuses makes both refuse: tritonrl exits non-zero naming the template's
file and carrying its message. A template that does not parse fails the same way."""

import json
import os
import subprocess
import time
import urllib.error
import urllib.request

import jinja2
import pytest
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from transformers import AutoTokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.environ.get("TRITONRL_BIN", os.path.join(BUILD, "tritonrl"))
HERE_TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chat_templates")
# The vendors' templates: the folder the configure extracted them into.
with open(os.path.join(BUILD, "llama_jinja_templates.txt"), encoding="utf-8") as _f:
    VENDOR_TEMPLATES = _f.read().strip()
# Short name -> the vendor's file (llama.cpp's name for it).
VENDOR_FILES = {
    "qwen3.jinja": "Qwen-Qwen3-0.6B.jinja",
    "llama3.jinja": "meta-llama-Llama-3.1-8B-Instruct.jinja",
    "mistral.jinja": "mistralai-Mistral-Nemo-Instruct-2407.jinja",
    "deepseek_r1.jinja": "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
    "gemma2.jinja": "google-gemma-2-2b-it.jinja",
}


def template_path(name):
    if name in VENDOR_FILES:
        return os.path.join(VENDOR_TEMPLATES, VENDOR_FILES[name])
    return os.path.join(HERE_TEMPLATES, name)

pytestmark = pytest.mark.skipif(
    subprocess.run([TRITONRL, "generate", "--help"], capture_output=True).returncode != 0,
    reason="generate is built only with libtorch")

# Template file -> the special tokens of its model's tokenizer_config.json (None: not set).
MODELS = {
    "qwen3.jinja": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "bos_token": None},
    "llama3.jinja": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "mistral.jinja": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "deepseek_r1.jinja": {"bos_token": "<\uff5cbegin\u2581of\u2581sentence\uff5c>",
                          "eos_token": "<\uff5cend\u2581of\u2581sentence\uff5c>"},
    "gemma2.jinja": {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>"},
    "features.jinja": {"bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": False,
                                     "normalized": False, "rstrip": False, "single_word": False,
                                     "special": True},
                       "eos_token": "</S>"},
}

# One user turn, a system prompt, reasoning in earlier and last assistant turns, odd newlines, a
# tool turn, text that looks like Jinja or JSON or is not ASCII, roles that do not alternate.
CONVERSATIONS = [
    [{"role": "user", "content": "Write a Triton kernel for ReLU."}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi there"}],
    [{"role": "user", "content": "a"},
     {"role": "assistant", "content": "<think>\nplan\n</think>\n\nanswer"},
     {"role": "user", "content": "b"}],
    [{"role": "system", "content": "  padded system  "}, {"role": "user", "content": "q"},
     {"role": "assistant", "content": "\n<think>\n\nstep 1\nstep 2\n\n</think>\n\nx</think>y"},
     {"role": "user", "content": "again"}],
    [{"role": "user", "content": "q"}, {"role": "assistant", "content": "no reasoning here"},
     {"role": "tool", "content": "{\"ok\": true}"}, {"role": "user", "content": "again"}],
    [{"role": "user", "content": "{{ messages }} {% if x %} \u00e9\u65e5\u672c\n\n  trailing  "}],
    [{"role": "user", "content": "first"}, {"role": "user", "content": "second"}],
    [{"role": "assistant", "content": "I start"}, {"role": "user", "content": "ok"}],
]


def make_model_dir(path, template_name, in_config_file):
    """A Hugging Face tokenizer directory whose chat template is `template_name`: in
    chat_template.jinja, or in tokenizer_config.json."""
    path.mkdir()
    tokens = MODELS[template_name]
    specials = sorted({t["content"] if isinstance(t, dict) else t
                       for t in tokens.values() if t is not None})
    vocab = {"<unk0>": 0, **{t: i + 1 for i, t in enumerate(specials)}}
    Tokenizer(WordLevel(vocab, unk_token="<unk0>")).save(str(path / "tokenizer.json"))
    with open(template_path(template_name), encoding="utf-8") as f:
        template = f.read()
    config = {"tokenizer_class": "PreTrainedTokenizerFast", **tokens}
    if in_config_file:
        config["chat_template"] = template
    else:
        (path / "chat_template.jinja").write_text(template, encoding="utf-8")
    (path / "tokenizer_config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def tritonrl_render(tmp_path, model, conversations, *flags):
    """(returncode, prompts or stderr) of `generate --print-prompts` over the conversations."""
    path = tmp_path / "messages.jsonl"
    path.write_text("".join(json.dumps({"messages": c}) + "\n" for c in conversations))
    r = subprocess.run([TRITONRL, "generate", "--model", str(model), "--prompts", str(path),
                        "--print-prompts", *flags], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return r.returncode, r.stderr
    return 0, [json.loads(line)["prompt"] for line in r.stdout.splitlines()]


def transformers_render(tok, conversation, kwargs):
    try:
        return tok.apply_chat_template(conversation, tokenize=False, add_generation_prompt=True,
                                       **kwargs), None
    except jinja2.exceptions.TemplateError as e:
        return None, str(e)


@pytest.mark.parametrize("template_name", sorted(MODELS))
def test_renders_what_transformers_renders(tmp_path, template_name):
    in_config = template_name in ("llama3.jinja", "gemma2.jinja", "features.jinja")
    model = make_model_dir(tmp_path / "model", template_name, in_config)
    template_file = model / ("tokenizer_config.json" if in_config else "chat_template.jinja")
    tok = AutoTokenizer.from_pretrained(str(model))
    rendered = refused = 0
    for flags, kwargs in (([], {}), (["--no-think"], {"enable_thinking": False})):
        theirs = [transformers_render(tok, c, kwargs) for c in CONVERSATIONS]
        ok = [i for i, (text, _) in enumerate(theirs) if text is not None]
        rc, ours = tritonrl_render(tmp_path, model, [CONVERSATIONS[i] for i in ok], *flags)
        assert rc == 0, ours
        for i, text in zip(ok, ours):
            assert text == theirs[i][0], (flags, CONVERSATIONS[i])
        rendered += len(ok)
        # Each conversation the template refuses: tritonrl refuses it too, with the template's
        # message, the template's file and the prompts file's line.
        for i, (text, error) in enumerate(theirs):
            if text is not None:
                continue
            rc, stderr = tritonrl_render(tmp_path, model, [CONVERSATIONS[i]], *flags)
            assert rc != 0
            assert str(template_file) in stderr, stderr
            assert error in stderr, (error, stderr)
            assert "messages.jsonl:1:" in stderr, stderr
            refused += 1
    assert rendered > 0
    # The alternation and system-role checks of Mistral and Gemma are exercised.
    if template_name in ("mistral.jinja", "gemma2.jinja"):
        assert refused > 0


def test_chat_template_file_wins_over_the_tokenizer_config(tmp_path):
    model = make_model_dir(tmp_path / "model", "qwen3.jinja", in_config_file=False)
    config = json.loads((model / "tokenizer_config.json").read_text())
    config["chat_template"] = "{{ 'not this one' }}"
    (model / "tokenizer_config.json").write_text(json.dumps(config))
    tok = AutoTokenizer.from_pretrained(str(model))
    want = tok.apply_chat_template(CONVERSATIONS[0], tokenize=False, add_generation_prompt=True)
    assert want.startswith("<|im_start|>user\n")
    assert tritonrl_render(tmp_path, model, [CONVERSATIONS[0]]) == (0, [want])


def test_a_template_that_does_not_parse_fails_naming_its_file(tmp_path):
    for in_config in (False, True):
        model = make_model_dir(tmp_path / f"model{int(in_config)}", "gemma2.jinja", in_config)
        broken = "{% for message in messages %}{{ message['content'] }}"  # no endfor
        if in_config:
            config = json.loads((model / "tokenizer_config.json").read_text())
            config["chat_template"] = broken
            (model / "tokenizer_config.json").write_text(json.dumps(config))
            where = model / "tokenizer_config.json"
        else:
            (model / "chat_template.jinja").write_text(broken)
            where = model / "chat_template.jinja"
        with pytest.raises(jinja2.exceptions.TemplateSyntaxError):
            AutoTokenizer.from_pretrained(str(model)).apply_chat_template(
                CONVERSATIONS[0], tokenize=False)
        rc, stderr = tritonrl_render(tmp_path, model, [CONVERSATIONS[0]])
        assert rc != 0
        assert f"{where}: chat template does not parse" in stderr, stderr
        # A raw prompt needs no template, so the broken one does not stand in its way.
        r = subprocess.run([TRITONRL, "generate", "--model", str(model), "--prompt", "raw",
                            "--print-prompts"], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["prompt"] == "raw"


def test_known_gaps_of_the_engine(tmp_path):
    """Where llama.cpp's engine (llama-cpp-python 0.3.36) is not Python: a string's length counts
    UTF-8 bytes, not characters, and split() without a separator splits at each single space (a
    FIXME upstream). Chat templates seldom do either on message text; docs/model.md lists them.
    This fails when the pinned engine changes here, so the docs can follow."""
    model = make_model_dir(tmp_path / "model", "gemma2.jinja", in_config_file=False)
    (model / "chat_template.jinja").write_text(
        "{{ messages[0]['content'] | length }}|{{ messages[0]['content'].split() | length }}")
    conversation = [{"role": "user", "content": "\u00e9  x"}]
    tok = AutoTokenizer.from_pretrained(str(model))
    assert tok.apply_chat_template(conversation, tokenize=False) == "4|2"
    assert tritonrl_render(tmp_path, model, [conversation]) == (0, ["5|3"])


def test_serve_renders_chat_in_the_models_template(tmp_path):
    """serve's /v1/chat/completions prompts in the model's own template: the usage counts its
    prompt (byte tokens), and a conversation the template refuses is a 400 with its message."""
    if "--model" not in subprocess.run([TRITONRL, "serve", "--help"], capture_output=True,
                                       text=True).stdout:
        pytest.skip("serving the policy needs the libtorch build")
    data = tmp_path / "sft.jsonl"
    data.write_text(json.dumps({"prompt": "p", "completion": "c"}) + "\n")
    r = subprocess.run([TRITONRL, "train", "sft", "--model", "builtin:tiny", "--data", str(data),
                        "--steps", "1", "--device", "cpu", "--no-progress",
                        "--out", str(tmp_path / "sft")], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    model = tmp_path / "sft" / "checkpoint"
    with open(template_path("mistral.jinja"), encoding="utf-8") as f:
        (model / "chat_template.jinja").write_text(f.read(), encoding="utf-8")
    config = json.loads((model / "tokenizer_config.json").read_text())
    config.update(bos_token="<|endoftext|>", eos_token="<|im_end|>")
    (model / "tokenizer_config.json").write_text(json.dumps(config))
    tok = AutoTokenizer.from_pretrained(str(model))
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    want = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert want == "<|endoftext|>[INST]Be brief.\n\nhi[/INST]"

    port_file = tmp_path / "port"
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen(
        [TRITONRL, "serve", "--tasks", os.path.join(ROOT, "tasks"), "--port", "0",
         "--port-file", str(port_file), "--state-dir", str(tmp_path / "state"), "--device", "cpu",
         "--jobs", "1", "--model", str(model), "--model-device", "cpu"],
        stdout=log, stderr=log, env=dict(os.environ, OMP_NUM_THREADS="1"))
    try:
        deadline = time.time() + 120
        while not port_file.exists() or not port_file.read_text().strip():
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            assert time.time() < deadline, "server did not start"
            time.sleep(0.1)
        url = "http://127.0.0.1:%s/v1/chat/completions" % port_file.read_text().strip()

        def post(body):
            req = urllib.request.Request(url, json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=300) as resp:
                    return resp.status, json.loads(resp.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())

        status, reply = post({"messages": messages, "max_tokens": 2})
        assert status == 200, reply
        # The byte tokenizer: one token per byte, one per special token.
        assert reply["usage"]["prompt_tokens"] == len(tok(want)["input_ids"])
        assert reply["usage"]["prompt_tokens"] == 1 + len("[INST]Be brief.\n\nhi[/INST]")
        status, reply = post({"messages": messages[1:] * 2, "max_tokens": 2})
        assert status == 400, reply
        assert "conversation roles must alternate" in reply["error"]["message"], reply
        assert str(model / "chat_template.jinja") in reply["error"]["message"], reply
    finally:
        proc.terminate()
        assert proc.wait(timeout=120) == 0, (tmp_path / "server.log").read_text()[-4000:]
        log.close()
    assert "chat template: " + str(model / "chat_template.jinja") in \
        (tmp_path / "server.log").read_text()
