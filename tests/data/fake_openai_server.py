"""A stand-in OpenAI-compatible server for the distill test (the project's `tritonrl serve` has
not landed yet): POST /v1/chat/completions answers with canned completions, and GET /count
reports how many completion requests it answered. Per prompt, the n-th request gets canned
answer n mod 3: a correct Triton solution (for the ReLU task), prose without code, and a
`torch.relu` cheat. Every fourth request overall first fails with 503 to exercise retries.

Usage: fake_openai_server.py PORT_FILE RELU_SOLUTION [CERT KEY]  (binds 127.0.0.1 on a free port and
writes it to PORT_FILE; RELU_SOLUTION is the file served as the correct answer; with CERT and KEY
it speaks https)
"""
import http.server
import json
import sys
import threading

RELU = open(sys.argv[2]).read()  # the suite's honest ReLU solution
CHEAT = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _unused(x_ptr):
    pass


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        _unused[(1,)](x)
        return torch.relu(x)
'''
ANSWERS = [
    "<think>\nOne flat masked kernel, max with 0.\n</think>\n\n```python\n" + RELU + "```\n",
    "I would write a kernel that applies the operator elementwise.",
    "<think>\nJust call torch.\n</think>\n\n```python\n" + CHEAT + "```\n",
]

lock = threading.Lock()
per_prompt = {}
state = {"answered": 0, "seen": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _send(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/count":
            self._send(200, {"answered": state["answered"], "seen": state["seen"]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):
        if self.path != "/v1/chat/completions":
            self._send(404, {"error": "not found"})
            return
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = req["messages"][-1]["content"]
        with lock:
            state["seen"] += 1
            if state["seen"] % 4 == 0:
                self._send(503, {"error": "busy"})
                return
            n = per_prompt.get(prompt, 0)
            per_prompt[prompt] = n + 1
            state["answered"] += 1
        self._send(200, {"id": "x", "object": "chat.completion", "model": req["model"],
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant",
                                                  "content": ANSWERS[n % 3]}}]})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
if len(sys.argv) > 4:  # CERT KEY: serve https (distill_tls_test.sh)
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
