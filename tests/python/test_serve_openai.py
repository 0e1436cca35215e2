"""`tritonrl serve --model builtin:tiny` (CPU) driven by the official `openai` client, as vLLM users
drive it: completions and chat, plain and streamed (the streamed pieces concatenate to the plain
reply of the same seed), the model list, a refused sampling field; and over plain HTTP: 405 with
Allow, JSON bodies whatever their Content-Type (curl -d's form encoding, over 8 KiB), special
tokens left out of the text, a streaming client that leaves early."""

import http.client
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

openai = pytest.importorskip("openai")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRITONRL = os.environ.get("TRITONRL_BIN") or os.path.join(
    os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build")), "tritonrl")
MODEL = "tiny"


def has_serve_model():
    if not os.path.exists(TRITONRL):
        return False
    r = subprocess.run([TRITONRL, "serve", "--help"], capture_output=True, text=True)
    return "--model" in r.stdout


pytestmark = pytest.mark.skipif(not has_serve_model(),
                                reason="serving the policy needs the libtorch build")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    state = tmp_path_factory.mktemp("serve")
    port_file = state / "port"
    log = open(state / "server.log", "wb")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.Popen(
        [TRITONRL, "serve", "--tasks", os.path.join(ROOT, "tasks"), "--port", "0",
         "--port-file", str(port_file), "--state-dir", str(state), "--device", "cpu", "--jobs", "1",
         "--model", "builtin:tiny", "--model-device", "cpu", "--served-model-name", MODEL,
         "--request-timeout", "300"],
        stdout=log, stderr=log, env=env)
    deadline = time.time() + 120
    while not port_file.exists() or not port_file.read_text().strip():
        assert proc.poll() is None, (state / "server.log").read_text()
        assert time.time() < deadline, "server did not start"
        time.sleep(0.1)
    port = int(port_file.read_text())
    yield port
    proc.terminate()
    assert proc.wait(timeout=120) == 0, (state / "server.log").read_text()[-4000:]
    log.close()


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url="http://127.0.0.1:%d/v1" % server, api_key="unused", max_retries=0)


def raw(port, method, path, body=None, headers=None):
    """(status, headers, parsed JSON or text) of one request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    conn.request(method, path, body=body, headers=headers or {})
    resp = conn.getresponse()
    text = resp.read().decode(errors="replace")
    conn.close()
    is_json = "application/json" in (resp.getheader("Content-Type") or "")
    return resp.status, resp, (json.loads(text) if is_json else text)


def test_models_list_has_created(client):
    models = client.models.list().data
    assert [m.id for m in models] == [MODEL]
    assert isinstance(models[0].created, int) and models[0].created > 1_600_000_000
    assert models[0].owned_by == "tritonrl"


def test_completion_stream_concatenates_to_the_plain_reply(client):
    args = dict(model=MODEL, prompt=["def relu(x):", "import triton"], max_tokens=24, n=2,
                temperature=0.9, seed=11, stop=["\n\n"])
    plain = client.completions.create(**args)
    assert plain.object == "text_completion" and len(plain.choices) == 4
    texts, finish = {}, {}
    chunks = list(client.completions.create(**args, stream=True))
    assert len(chunks) > 4, "one chunk per choice: nothing was streamed"
    for chunk in chunks:
        assert chunk.object == "text_completion" and chunk.id == chunks[0].id
        for c in chunk.choices:
            assert c.index not in finish, "text after the finish reason"
            texts[c.index] = texts.get(c.index, "") + c.text
            if c.finish_reason is not None:
                finish[c.index] = c.finish_reason
    for c in plain.choices:
        assert texts[c.index] == c.text, c.index
        assert finish[c.index] == c.finish_reason
        assert c.finish_reason in ("stop", "length")


def test_chat_stream_role_then_content_then_usage(client):
    args = dict(model=MODEL, messages=[{"role": "user", "content": "Write a ReLU kernel."}],
                max_tokens=32, temperature=0, seed=3)
    plain = client.chat.completions.create(**args)
    stream = client.chat.completions.create(**args, stream=True,
                                            stream_options={"include_usage": True})
    chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    first = chunks[0].choices[0].delta
    assert first.role == "assistant" and first.content == ""
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == plain.choices[0].message.content
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == [plain.choices[0].finish_reason]
    # The last chunk carries the usage and no choices; every other chunk has usage null.
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert all(c.usage is None for c in chunks[:-1])
    assert chunks[-1].usage.prompt_tokens == plain.usage.prompt_tokens
    assert chunks[-1].usage.completion_tokens == plain.usage.completion_tokens


def test_refused_sampling_field_is_named(client):
    # Its neutral value is what client libraries send by default: served as usual.
    ok = client.completions.create(model=MODEL, prompt="x", max_tokens=2, logit_bias={})
    assert len(ok.choices) == 1
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model=MODEL, prompt="x", max_tokens=2, logit_bias={"65": 5})
    err = e.value.body["error"] if "error" in e.value.body else e.value.body
    assert err["code"] == "unsupported" and err["field"] == "logit_bias"
    assert "logit_bias is not supported" in err["message"]
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x"}],
                                       tools=[{"type": "function", "function": {"name": "f"}}])
    assert "tools is not supported" in str(e.value)


def test_penalties_change_greedy_output(client):
    # Greedy decoding of a random model repeats itself; a frequency penalty breaks the loop.
    args = dict(model=MODEL, prompt="def relu(x):", max_tokens=64, temperature=0)
    plain = client.completions.create(**args).choices[0]
    assert client.completions.create(**args, frequency_penalty=0).choices[0].text == plain.text
    for field, value in (("frequency_penalty", 2.0), ("presence_penalty", 2.0)):
        other = client.completions.create(**args, **{field: value}).choices[0]
        assert other.text != plain.text, field
    rep = client.completions.create(**args, extra_body={"repetition_penalty": 1.8}).choices[0]
    assert rep.text != plain.text
    # The same penalty, streamed: the same text.
    chunks = client.completions.create(**args, frequency_penalty=2.0, stream=True)
    streamed = "".join(c.choices[0].text for c in chunks if c.choices)
    assert streamed == client.completions.create(**args, frequency_penalty=2.0).choices[0].text
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(**args, presence_penalty=3)
    assert "presence_penalty must be within [-2, 2]" in str(e.value)


def test_wrong_method_is_405_with_allow(server):
    status, resp, body = raw(server, "GET", "/v1/chat/completions")
    assert status == 405 and resp.getheader("Allow") == "POST", body
    assert body["error"]["code"] == "method_not_allowed"
    status, resp, body = raw(server, "DELETE", "/v1/models")
    assert status == 405 and resp.getheader("Allow") == "GET", body
    # A method with a body (httplib would read it first, with no handler for it).
    status, resp, body = raw(server, "PUT", "/v1/verify", b'{"samples": []}',
                             {"Content-Type": "application/json"})
    assert status == 405 and resp.getheader("Allow") == "POST", body
    status, _, body = raw(server, "GET", "/v1/nothing")
    assert status == 404 and body["error"]["code"] == "not_found"


def test_json_body_whatever_the_content_type(server):
    # curl -d sends application/x-www-form-urlencoded; httplib used to cap such bodies at 8 KiB.
    big = json.dumps({"samples": [{"code": "import torch\n" + "# pad\n" * 2000}]})
    assert len(big) > 8192
    for ctype in ("application/x-www-form-urlencoded", "text/plain", None):
        headers = {"Content-Type": ctype} if ctype else {}
        status, _, body = raw(server, "POST", "/v1/verify", big.encode(), headers)
        assert status == 200, (ctype, body)
        assert len(body["verdicts"]) == 1
    body = json.dumps({"prompt": "hi", "max_tokens": 2, "seed": 1}).encode()
    status, _, r = raw(server, "POST", "/v1/completions", body,
                       {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200 and len(r["choices"]) == 1, r
    status, _, r = raw(server, "POST", "/v1/completions", b'{"prompt": "hi", "max_tokens": }',
                       {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 400 and r["error"]["code"] == "malformed_json", r
    # 1-based, as nlohmann counts: the "}" where a value should be.
    assert r["error"]["message"].startswith("malformed JSON at byte 32, line 1, column 32: "), r
    assert "unexpected '}'" in r["error"]["message"], r
    # No body at all (curl -X POST): named, not a read failure.
    status, _, r = raw(server, "POST", "/v1/verify")
    assert status == 400 and r["error"]["code"] == "empty_body", r
    status, _, r = raw(server, "POST", "/v1/verify", b"--x--",
                       {"Content-Type": "multipart/form-data; boundary=x"})
    assert status == 415 and r["error"]["code"] == "unsupported_media_type", r


def test_special_tokens_left_out_of_the_text(server):
    # A random model samples <|im_start|> (special, not a stop token) now and then: about 15
    # times in 64 x 64 tokens, so some sample draws it whatever the CPU's rounding.
    req = {"prompt": "<|im_start|>user\nhi", "max_tokens": 64, "n": 64, "temperature": 1.5,
           "seed": 5, "logprobs": 0}
    status, _, skipped = raw(server, "POST", "/v1/completions", json.dumps(req).encode())
    assert status == 200, skipped
    status, _, kept = raw(server, "POST", "/v1/completions",
                          json.dumps(dict(req, skip_special_tokens=False)).encode())
    assert status == 200, kept
    with_special = [c for c in skipped["choices"] if "<|im_start|>" in c["logprobs"]["tokens"]]
    assert with_special, "no sample drew <|im_start|>: pick another seed"
    for c in skipped["choices"]:
        assert "<|im_start|>" not in c["text"]
    for c in with_special:
        k = kept["choices"][c["index"]]
        assert k["logprobs"]["tokens"] == c["logprobs"]["tokens"]  # same seed, same tokens
        assert "<|im_start|>" in k["text"]
        assert k["text"].replace("<|im_start|>", "") == c["text"]
    # The usage still counts every generated token, special ones included.
    assert skipped["usage"]["completion_tokens"] == sum(
        len(c["logprobs"]["tokens"]) for c in skipped["choices"])


def test_client_leaving_a_stream_stops_its_generation(server):
    # Greedy on this prompt runs to max_tokens; the stream is dropped after its first chunk.
    req = {"prompt": "def relu(x):", "max_tokens": 3000, "temperature": 0, "stream": True}
    sock = socket.create_connection(("127.0.0.1", server))
    body = json.dumps(req).encode()
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(body) + body)
    head = sock.recv(4096)
    assert b"200 OK" in head and b"text/event-stream" in head, head
    sock.close()
    # One generation thread serves every request: this one waits until the dropped stream's rows
    # are given up, not for 3000 tokens.
    t0 = time.time()
    status, _, r = raw(server, "POST", "/v1/completions",
                       json.dumps({"prompt": "x", "max_tokens": 2, "seed": 1}).encode())
    assert status == 200, r
    took = time.time() - t0
    # The same 3000 tokens, not dropped, for comparison.
    t1 = time.time()
    status, _, full = raw(server, "POST", "/v1/completions",
                          json.dumps(dict(req, stream=False)).encode())
    full_time = time.time() - t1
    assert status == 200 and full["choices"][0]["finish_reason"] == "length", full
    print("after a dropped stream: %.2fs; the full generation: %.2fs" % (took, full_time))
    assert took < full_time / 3, (took, full_time)
