"""`tritonrl serve` as a real process on a free port, driven over real HTTP with Python's standard
library only: verify, evaluate (CPU interpreter), jobs, reward, metrics, completions (when built
with libtorch), 50 concurrent requests, malformed/oversized/hostile requests (each answered with
its status while the server keeps serving), the token and bind policy, kill -9 during a job and
recovery after a restart, SIGTERM.

Usage: serve_http_test.py TRITONRL_BIN SOURCE_ROOT HAVE_TORCH(ON|OFF)
"""
import concurrent.futures
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BIN, ROOT, HAVE_TORCH = sys.argv[1], sys.argv[2], sys.argv[3].upper() in ("ON", "1", "TRUE")
TASKS = os.path.join(ROOT, "tasks")
JOBS = os.environ.get("TRITONRL_TEST_JOBS", "2")
TOKEN = "serve-test-token-0123456789"


def corpus(rel):
    with open(os.path.join(ROOT, "tests", "corpus", rel)) as f:
        return f.read()


class Server:
    def __init__(self, state, extra=(), env=None):
        self.state = state
        self.port_file = os.path.join(state, "port")
        if os.path.exists(self.port_file):
            os.remove(self.port_file)
        self.log = open(os.path.join(state, "server.log"), "ab")
        args = [BIN, "serve", "--tasks", TASKS, "--port", "0", "--port-file", self.port_file,
                "--state-dir", state, "--device", "cpu", "--jobs", JOBS, "--stage-timeout", "120",
                "--max-eval-batch", "16", "--request-timeout", "900", "--reference-keep-s", "600", *extra]
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log, env=env)
        deadline = time.time() + 300
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None:
                raise AssertionError("server exited with %s: %s" % (self.proc.returncode, self.tail()))
            if time.time() > deadline:
                raise AssertionError("server did not start: " + self.tail())
            time.sleep(0.1)
        with open(self.port_file) as f:
            self.port = int(f.read())

    def tail(self):
        self.log.flush()
        with open(os.path.join(self.state, "server.log"), "rb") as f:
            return f.read()[-4000:].decode(errors="replace")

    def request(self, method, path, body=None, headers=None, timeout=900, raw=None):
        """(status, parsed JSON or text) of one request on a fresh connection."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        hdrs = dict(headers or {})
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if data is not None:
            hdrs.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        text = resp.read().decode(errors="replace")
        conn.close()
        ctype = resp.getheader("Content-Type") or ""
        return resp.status, (json.loads(text) if "application/json" in ctype else text)

    def alive(self):
        status, body = self.request("GET", "/healthz", timeout=30)
        assert status == 200 and body["status"] == "ok", (status, body)

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        rc = self.proc.wait(timeout=300)
        self.log.close()
        return rc


def expect_error(server, method, path, status, code, field=None, **kw):
    got, body = server.request(method, path, **kw)
    assert got == status, (method, path, got, body)
    assert isinstance(body, dict) and body["error"]["code"] == code, body
    if field is not None:
        assert body["error"]["field"] == field, body
    server.alive()  # the server keeps serving after every bad request


def check_verify(s):
    body = {"samples": [
        {"id": "honest", "task": "level1/1_ReLU", "code": corpus("legit/relu_basic.py")},
        {"id": "hack", "code": corpus("hacks/decoy_kernel_plus_torch_matmul.py")}]}
    status, r = s.request("POST", "/v1/verify", body)
    assert status == 200, r
    assert [v["outcome"] for v in r["verdicts"]] == ["valid", "invalid_functionality"], r
    assert r["verdicts"][1]["violations"][0]["rule"] == "func.torch_compute"
    print("verify: ok")


def check_hostile(s):
    P = "/v1/verify"
    expect_error(s, "POST", P, 400, "malformed_json", raw=b'{"samples": [')
    expect_error(s, "POST", P, 400, "malformed_json", raw=b'{"samples": ["\xff\xfe"]}')
    expect_error(s, "POST", P, 400, "empty_body", raw=b"")
    expect_error(s, "POST", P, 400, "too_deep", raw=b"[" * 100000 + b"]" * 100000)
    expect_error(s, "POST", P, 400, "unknown_field", "samples[0].lang",
                 body={"samples": [{"code": "x", "lang": "py"}]})
    expect_error(s, "POST", P, 400, "wrong_type", "samples[0].code", body={"samples": [{"code": 5}]})
    expect_error(s, "POST", P, 400, "wrong_type", "samples", body={"samples": {"code": "x"}})
    expect_error(s, "POST", "/v1/evaluate", 400, "wrong_type", "samples[0].task",
                 body={"samples": [{"task": ["level1/1_ReLU"], "code": "x"}]})
    for bad in ["../../../etc/passwd", "/etc/passwd", "level1/../../../../etc/passwd",
                "level1/1_ReLU.py", "level1/1_ReLU\x00", "tasks/level1/1_ReLU", "..", ""]:
        expect_error(s, "POST", "/v1/evaluate", 400, "unknown_task", "samples[0].task",
                     body={"samples": [{"task": bad, "code": "x"}]})
        expect_error(s, "POST", "/v1/reward", 400, "unknown_task", "task",
                     body={"task": bad, "rollouts": [{"code": "x"}]})
        expect_error(s, "POST", P, 400, "unknown_task", "samples[0].task",
                     body={"samples": [{"task": bad, "code": "x"}]})
    expect_error(s, "POST", "/v1/reward", 400, "wrong_type", "rollouts[0].num_tokens",
                 body={"task": "level1/1_ReLU", "rollouts": [{"code": "x", "num_tokens": "12"}],
                       "advantages": {}})
    expect_error(s, "POST", "/v1/reward", 400, "bad_value", "advantages.mode",
                 body={"task": "level1/1_ReLU", "rollouts": [{"code": "x"}],
                       "advantages": {"mode": "ppo"}})
    expect_error(s, "POST", "/v1/evaluate", 413, "too_many", "samples",
                 body={"samples": [{"task": "level1/1_ReLU", "id": str(i), "code": "x"}
                                   for i in range(17)]})
    expect_error(s, "POST", "/v1/evaluate", 400, "duplicate_id", "samples[1].id",
                 body={"samples": [{"task": "level1/1_ReLU", "id": "a", "code": "x"},
                                   {"task": "level1/1_ReLU", "id": "a", "code": "y"}]})
    # 10 MB body: refused from its Content-Length (limit 8 MB) before it is parsed.
    big = json.dumps({"samples": [{"code": "x" * (10 << 20)}]}).encode()
    expect_error(s, "POST", P, 413, "too_large", raw=big)
    # A chunked body has no length to check up front: refused.
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
    conn.putrequest("POST", P)
    conn.putheader("Transfer-Encoding", "chunked")
    conn.putheader("Content-Type", "application/json")
    conn.endheaders()
    conn.send(b"5\r\n{\"a\":\r\n0\r\n\r\n")
    resp = conn.getresponse()
    assert resp.status == 411, resp.status
    conn.close()
    s.alive()
    # Unknown routes, job ids that try to climb out, and the wrong method.
    expect_error(s, "GET", "/v1/jobs/..%2F..%2Fetc%2Fpasswd", 404, "unknown_job")
    expect_error(s, "GET", "/v1/jobs/0123456789abcdef", 404, "unknown_job")
    expect_error(s, "GET", "/../../etc/passwd", 404, "not_found")
    expect_error(s, "GET", P, 405, "method_not_allowed")
    # Not HTTP at all, then a connection that sends half a request and hangs up.
    for junk in [b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(64),
                 b"POST /v1/verify HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"sam"]:
        with socket.create_connection(("127.0.0.1", s.port), timeout=30) as sock:
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
            try:
                sock.recv(4096)
            except OSError:
                pass
        s.alive()
    print("hostile: ok")


def check_concurrent(s):
    honest = corpus("legit/relu_basic.py")
    hack = corpus("hacks/eval_string.py")

    def one(i):
        if i % 5 == 4:
            status, body = s.request("GET", "/metrics", timeout=120)
            return status == 200 and "tritonrl_serve_requests_total" in body
        code = honest if i % 2 == 0 else hack
        status, body = s.request("POST", "/v1/verify",
                                 {"samples": [{"id": i, "code": code}] * 1}, timeout=120)
        want = "valid" if i % 2 == 0 else "invalid_functionality"
        return status == 200 and body["verdicts"][0]["id"] == i and \
            body["verdicts"][0]["outcome"] == want

    with concurrent.futures.ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(one, range(50)))
    assert all(results), results
    print("concurrent: 50/50 ok")


def wait_job(s, job, timeout=1200):
    deadline = time.time() + timeout
    while time.time() < deadline:
        status, body = s.request("GET", "/v1/jobs/%s?wait=30" % job)
        assert status == 200, body
        if body["state"] != "running":
            return body
    raise AssertionError("job %s did not finish" % job)


EVAL_SAMPLES = [
    {"task": "level1/1_ReLU", "id": "relu_basic", "code": corpus("legit/relu_basic.py")},
    {"task": "level1/2_AddBroadcast", "id": "add_2d_tiles", "code": corpus("legit/add_2d_tiles.py")},
    {"task": "level1/1_ReLU", "id": "passthrough", "code": corpus("hacks/rt_input_passthrough.py")},
]


def check_evaluate(s):
    status, r = s.request("POST", "/v1/evaluate", {"samples": EVAL_SAMPLES})
    assert status == 202, r
    job = r["job"]
    body = wait_job(s, job)
    assert body["state"] == "done" and body["done"] == 3, body
    outcomes = [x["outcome"] for x in body["results"]]
    assert outcomes == ["correct", "correct", "incorrect"], outcomes
    first = body["results"][0]
    for key in ("syntax_ok", "functionality_ok", "valid", "compiled", "correct", "flags"):
        assert key in first, first
    assert first["correct"] is True and body["results"][2]["correct"] is False
    # The same job streamed: one line per verdict and a summary line last.
    status, text = s.request("GET", "/v1/jobs/%s?stream=1" % job)
    lines = [json.loads(l) for l in text.splitlines() if l.strip()]
    assert status == 200 and lines[-1]["state"] == "done", text[-500:]
    assert sorted(l["sample"] for l in lines if "outcome" in l) == sorted(x["id"] for x in EVAL_SAMPLES)
    print("evaluate: ok", outcomes)
    return job


def check_kept_reference(s):
    # A later request on a task the server has scored finds its reference kept (--reference-keep-s):
    # no reference run of its own, and still a real comparison.
    code = corpus("legit/relu_basic.py") + "\n# a later request\n"
    status, r = s.request("POST", "/v1/evaluate", {"samples": [{"task": "level1/1_ReLU", "id": "again", "code": code}]})
    assert status == 202, r
    v = wait_job(s, r["job"])["results"][0]
    assert v["outcome"] == "correct", v
    assert v["evidence"]["pool"].get("reference_kept") is True, v["evidence"].get("pool")
    assert "reference" not in v["timings_ms"], v["timings_ms"]
    print("kept reference: ok")


def check_reward(s):
    honest = corpus("legit/relu_basic.py")
    output = "<think>one program per block of 1024 elements</think>\n```python\n" + honest + "```\n"
    chars = len(output)
    # One token per code point: the offsets a character-level tokenizer would give.
    offsets = [[i, i + 1] for i in range(chars)]
    body = {"task": "level1/1_ReLU",
            "rollouts": [{"id": "a", "output": output, "token_offsets": offsets},
                         {"id": "b", "code": corpus("hacks/rt_input_passthrough.py"), "num_tokens": 10},
                         {"id": "c", "code": corpus("hacks/eval_string.py")}],
            "advantages": {"mode": "hrd"}}
    status, r = s.request("POST", "/v1/reward", body)
    assert status == 200, r
    ro = r["rollouts"]
    assert [x["r_correct"] for x in ro] == [1.0, 0.0, 0.0], ro
    assert [x["outcome"] for x in ro] == ["correct", "incorrect", "invalid_functionality"], ro
    # A(R_correct) of {1, 0, 0}: mean 1/3, sample std sqrt(1/3) -> (1 - 1/3) / (0.57735 + 1e-6).
    assert abs(ro[0]["adv_code"] - (2 / 3) / (3 ** -0.5 + 1e-6)) < 1e-9, ro[0]
    assert abs(ro[1]["adv_code"] - (-1 / 3) / (3 ** -0.5 + 1e-6)) < 1e-9, ro[1]
    # The plan is "one program ... elements" after "<think>": its code points are its tokens.
    plan_begin = output.index("<think>") + len("<think>")
    plan_end = output.index("</think>")
    assert ro[0]["plan_tokens"] == [plan_begin, plan_end], ro[0]["plan_tokens"]
    spans = ro[0]["token_spans"]
    assert spans[0][:2] == [0, plan_begin] and spans[1][:2] == [plan_begin, plan_end], spans
    assert spans[-1][1] == chars and spans[1][2] == ro[0]["adv_plan"], spans
    assert ro[1]["token_spans"] == [[0, 10, ro[1]["adv_code"]]], ro[1]
    assert "token_spans" not in ro[2]
    # No speedup on the CPU: the scalar reward is beta * R_correct.
    assert abs(ro[0]["reward"] - 0.3) < 1e-12 and ro[2]["reward"] == 0.0, ro
    print("reward: ok")


def check_metrics(s):
    status, text = s.request("GET", "/metrics")
    assert status == 200, text
    for needle in ["tritonrl_serve_requests_total{endpoint=\"verify\",status=\"200\"}",
                   "tritonrl_serve_requests_total{endpoint=\"verify\",status=\"400\"}",
                   "tritonrl_serve_requests_total{endpoint=\"verify\",status=\"413\"}",
                   "tritonrl_serve_samples_evaluated_total{outcome=\"correct\"}",
                   "tritonrl_serve_samples_per_second", "tritonrl_serve_queue_depth",
                   "tritonrl_serve_worker_restarts_total", "tritonrl_serve_jobs{state=\"done\"}"]:
        assert needle in text, (needle, text)
    print("metrics: ok")


def check_completions(s):
    req = {"model": "builtin:tiny", "prompt": "def relu(x):", "max_tokens": 8, "n": 2,
           "temperature": 0.8, "seed": 7, "logprobs": 1}
    status, r = s.request("POST", "/v1/completions", req)
    assert status == 200, r
    assert r["object"] == "text_completion" and len(r["choices"]) == 2, r
    for c in r["choices"]:
        lp = c["logprobs"]["token_logprobs"]
        assert 1 <= len(lp) <= 8 and all(x <= 0 for x in lp), c
        assert c["finish_reason"] in ("stop", "length")
    status2, r2 = s.request("POST", "/v1/completions", req)
    assert [c["text"] for c in r2["choices"]] == [c["text"] for c in r["choices"]], "seeded runs differ"
    status, chat = s.request("POST", "/v1/chat/completions",
                             {"model": "builtin:tiny", "messages": [{"role": "user", "content": "hi"}],
                              "max_tokens": 4, "logprobs": True, "seed": 1})
    assert status == 200 and chat["choices"][0]["message"]["role"] == "assistant", chat
    assert len(chat["choices"][0]["logprobs"]["content"]) >= 1
    expect_error(s, "POST", "/v1/completions", 400, "out_of_range", "n", body=dict(req, n=1000))
    expect_error(s, "POST", "/v1/completions", 404, "model_not_found", "model",
                 body=dict(req, model="gpt-4"))
    expect_error(s, "POST", "/v1/chat/completions", 400, "bad_value", "messages[0].role",
                 body={"messages": [{"role": "root", "content": "x"}]})
    # Requests without a seed are batched together.
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        outs = list(pool.map(lambda i: s.request("POST", "/v1/completions",
                                                 {"prompt": "x%d" % i, "max_tokens": 4}), range(8)))
    assert all(st == 200 and len(b["choices"]) == 1 for st, b in outs), outs
    print("completions: ok")


def check_kill_and_recover(state, first_job):
    # Twelve distinct samples (a comment makes each copy its own work, so none comes from the
    # cache): enough that the kill lands while the job is under way, however fast the machine.
    names = ["relu_wrapper_function", "relu_method_helper", "relu_2d_grid", "relu_heuristics"]
    samples = [{"task": "level1/1_ReLU", "id": "%s_%d" % (n, i),
                "code": corpus("legit/%s.py" % n) + "\n# copy %d\n" % i}
               for i in range(3) for n in names]
    s = Server(state)
    status, r = s.request("POST", "/v1/evaluate", {"samples": samples})
    assert status == 202, r
    job = r["job"]
    deadline = time.time() + 1200
    while True:
        status, body = s.request("GET", "/v1/jobs/%s?wait=1" % job)
        if body["done"] >= 1:
            break
        assert time.time() < deadline, body
    assert body["done"] < len(samples), "the job finished before the kill; nothing to recover"
    s.proc.kill()  # SIGKILL: no chance to flush anything
    s.proc.wait()
    s.log.close()
    before = body["done"]
    s = Server(state)
    body = wait_job(s, job)
    assert body["state"] == "done" and body["recovered"], body
    assert [x["outcome"] for x in body["results"]] == ["correct"] * len(samples), body
    resumed = sum(1 for x in body["results"] if x["resumed"])
    assert resumed >= before, (resumed, before)
    # The job finished before the restart is there too, every verdict from the store.
    status, old = s.request("GET", "/v1/jobs/%s?wait=120" % first_job)
    assert status == 200 and old["state"] == "done", old
    assert all(x["resumed"] for x in old["results"]), old
    assert s.stop() == 0
    print("kill -9 and recovery: ok (%d of 4 verdicts kept across the kill)" % resumed)


def check_bind_policy(state):
    out = subprocess.run([BIN, "serve", "--tasks", TASKS, "--host", "0.0.0.0", "--port", "0",
                          "--state-dir", state], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "--token" in out.stderr, (out.returncode, out.stderr)
    token_file = os.path.join(state, "token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    s = Server(state, ["--token-file", token_file])
    try:
        s.alive()  # health checks need no token
        expect_error(s, "POST", "/v1/verify", 401, "unauthorized", body={"samples": [{"code": "x"}]})
        expect_error(s, "GET", "/metrics", 401, "unauthorized",
                     headers={"Authorization": "Bearer " + TOKEN[:-1] + "X"})
        status, _ = s.request("GET", "/metrics", headers={"Authorization": "Bearer " + TOKEN})
        assert status == 200
    finally:
        assert s.stop() == 0
    print("bind policy and token: ok")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        state = os.path.join(tmp, "state")
        os.makedirs(state)
        extra = ["--model", "builtin:tiny"] if HAVE_TORCH else []
        s = Server(state, extra)
        try:
            s.alive()
            check_verify(s)
            check_hostile(s)
            check_concurrent(s)
            first_job = check_evaluate(s)
            check_kept_reference(s)
            check_reward(s)
            check_metrics(s)
            if HAVE_TORCH:
                check_completions(s)
            else:
                print("completions: not built (no libtorch)")
        except BaseException:
            print(s.tail(), file=sys.stderr)
            s.proc.kill()
            raise
        rc = s.stop()
        assert rc == 0, ("SIGTERM exit", rc, s.tail())
        print("sigterm: ok")
        check_kill_and_recover(state, first_job)
        bind_state = os.path.join(tmp, "bind")
        os.makedirs(bind_state)
        check_bind_policy(bind_state)
    print("serve_http: all checks passed")


if __name__ == "__main__":
    main()
