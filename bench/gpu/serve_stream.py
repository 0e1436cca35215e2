"""GPU check of the server's streaming and penalties (run on the GPU machine; docs/serve.md).

`tritonrl serve --model builtin:tiny --model-device cuda` (decode steps as CUDA graphs, host reads
every 16 steps), driven over plain HTTP:
  1 streamed pieces concatenate to the plain reply (seeded sampling, n=3, 2 prompts, a stop
    string; greedy; with presence/frequency/repetition penalties, which run inside the graphs)
  2 penalties change the greedy text, and the same request twice gives the same text
  3 a long generation's first chunk comes well before its end (text streams while it runs)
  4 a client that leaves a long stream frees the generation thread at once
Usage: BIN=folder-with-tritonrl python3 bench/gpu/serve_stream.py   (LD_LIBRARY_PATH as libpath.sh)
"""
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ["BIN"]
failures = []


def check(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + (": " + detail if detail else ""), flush=True)
    if not ok:
        failures.append(name)


def post(port, path, body):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    return resp.status, json.loads(resp.read())


def stream(port, path, body):
    """(texts by choice index, finish reasons, seconds to the first text, seconds in all)."""
    t0 = time.time()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.request("POST", path, json.dumps(dict(body, stream=True)), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()
    texts, finish, first = {}, {}, None
    buf = b""
    while True:
        line = resp.readline()
        if not line:
            break
        buf += line
        if not buf.endswith(b"\n\n"):
            continue
        data = buf.decode()[len("data: "):].strip()
        buf = b""
        if data == "[DONE]":
            break
        for c in json.loads(data)["choices"]:
            piece = c.get("text") if "text" in c else c["delta"].get("content", "")
            if piece and first is None:
                first = time.time() - t0
            texts[c["index"]] = texts.get(c["index"], "") + (piece or "")
            if c["finish_reason"]:
                finish[c["index"]] = c["finish_reason"]
    return texts, finish, first, time.time() - t0


def main():
    state = tempfile.mkdtemp()
    port_file = os.path.join(state, "port")
    log = open(os.path.join(state, "log"), "wb")
    proc = subprocess.Popen([os.path.join(BIN, "tritonrl"), "serve", "--tasks", os.path.join(ROOT, "tasks"),
                             "--port", "0", "--port-file", port_file, "--state-dir", state, "--device", "cpu",
                             "--jobs", "1", "--python", sys.executable, "--model", "builtin:tiny",
                             "--model-device", os.environ.get("MODEL_DEVICE", "cuda")],
                            stdout=log, stderr=log)
    while not (os.path.exists(port_file) and open(port_file).read().strip()):
        if proc.poll() is not None:
            sys.exit("server exited: " + open(os.path.join(state, "log")).read())
        time.sleep(0.2)
    port = int(open(port_file).read())
    try:
        cases = {
            "sampled n=3, 2 prompts, stop": {"prompt": ["def relu(x):", "import triton"], "n": 3,
                                             "max_tokens": 200, "temperature": 0.9, "seed": 7,
                                             "stop": ["\n\n"]},
            "greedy": {"prompt": "def relu(x):", "max_tokens": 300, "temperature": 0},
            "penalties": {"prompt": "def relu(x):", "max_tokens": 300, "temperature": 0.8, "seed": 3,
                          "presence_penalty": 0.5, "frequency_penalty": 0.7,
                          "repetition_penalty": 1.3},
        }
        for name, req in cases.items():
            status, plain = post(port, "/v1/completions", req)
            texts, finish, _, _ = stream(port, "/v1/completions", req)
            same = status == 200 and all(texts.get(c["index"]) == c["text"] and
                                         finish.get(c["index"]) == c["finish_reason"]
                                         for c in plain["choices"])
            check("1 streamed == plain: " + name, same)
        greedy = {"prompt": "def relu(x):", "max_tokens": 300, "temperature": 0}
        base = post(port, "/v1/completions", greedy)[1]["choices"][0]["text"]
        for field, value in (("frequency_penalty", 1.5), ("presence_penalty", 1.5), ("repetition_penalty", 1.5)):
            a = post(port, "/v1/completions", dict(greedy, **{field: value}))[1]["choices"][0]["text"]
            b = post(port, "/v1/completions", dict(greedy, **{field: value}))[1]["choices"][0]["text"]
            check("2 %s changes greedy text, repeatably" % field, a != base and a == b)
        long_req = {"prompt": "def relu(x):", "max_tokens": 3000, "temperature": 0}
        _, _, first, total = stream(port, "/v1/completions", long_req)
        check("3 first text long before the end", first is not None and first < total / 5,
              "first %.3fs, all %.3fs" % (first or -1, total))
        body = json.dumps(dict(long_req, stream=True)).encode()
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(body) + body)
        sock.recv(4096)
        sock.close()
        t0 = time.time()
        post(port, "/v1/completions", {"prompt": "x", "max_tokens": 2, "seed": 1})
        took = time.time() - t0
        check("4 a dropped stream frees the generation thread", took < total / 5,
              "next request %.3fs, a full stream %.3fs" % (took, total))
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    print("serve_stream: %s" % ("all passed" if not failures else "FAILED: " + ", ".join(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
