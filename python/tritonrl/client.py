"""HTTP client for `tritonrl serve` (docs/serve.md), standard library only.

Who calls it: the TRL reward function and trainer, verl's reward and advantage functions, and user
code. One client may be shared by threads: it holds no connection state (each request opens its
own connection, so a reward function's worker threads never contend for one socket).

What is retried: only failures after which sending the same request again is safe and may
succeed. A refused or dropped connection (the server is starting or restarting: its jobs resume
from its state folder), 503 (`busy`, `out_of_memory`: too many jobs at once) and 504 (`timeout`:
the job goes on in the server, and the same rollouts sent again are answered from its store).
A 4xx is the request's own fault and is raised at once, with the server's code, field and message.
"""
import json
import os
import socket
import time
import urllib.error
import urllib.request

DEFAULT_URL = "http://127.0.0.1:8000"
RETRY_STATUSES = (502, 503, 504)


class TritonRLError(RuntimeError):
    """A request to `tritonrl serve` failed. `status` is the HTTP status (None when no reply came),
    `code` and `field` the server's error code and field path (docs/serve.md, "Safety")."""

    def __init__(self, message, status=None, code=None, field=None, url=None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.field = field
        self.url = url


class ServerUnavailable(TritonRLError):
    """No reply from the server after every retry: it is not running, not listening at this URL,
    or kept answering busy / timeout."""


class TritonRLClient:
    """`TritonRLClient(url, token)`; both default to $TRITONRL_URL (else http://127.0.0.1:8000)
    and $TRITONRL_SERVE_TOKEN.

    >>> client = TritonRLClient("http://127.0.0.1:8000")
    >>> client.reward("level1/1_ReLU", [{"id": "a", "output": text}])["rollouts"][0]["reward"]
    """

    def __init__(self, url=None, token=None, timeout=3600.0, retries=3, backoff=1.0):
        self.url = (url or os.environ.get("TRITONRL_URL") or DEFAULT_URL).rstrip("/")
        self.token = token if token is not None else os.environ.get("TRITONRL_SERVE_TOKEN")
        # A reward request waits for its rollouts to be evaluated (up to the server's
        # --request-timeout), so the socket timeout is long by default.
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    def __repr__(self):
        return f"TritonRLClient({self.url!r})"

    def request(self, method, path, body=None, timeout=None):
        """The parsed JSON reply of one request; raises TritonRLError or ServerUnavailable."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        where = f"{method} {self.url}{path}"
        last = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            req = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(req, timeout=timeout or self.timeout) as resp:
                    return json.load(resp)
            except urllib.error.HTTPError as e:
                err = _server_error(e, where)
                if e.code not in RETRY_STATUSES:
                    raise err from None
                last = err
            except (urllib.error.URLError, ConnectionError, socket.timeout) as e:
                reason = getattr(e, "reason", e)
                last = ServerUnavailable(f"{where}: no reply from tritonrl serve ({reason}); is it running "
                                         f"and listening there? (set TRITONRL_URL)", url=self.url)
        if isinstance(last, ServerUnavailable):
            raise last
        raise ServerUnavailable(f"{last} (after {self.retries + 1} attempts)", status=last.status,
                                code=last.code, field=last.field, url=self.url)

    def health(self):
        """`{"status": "ok", "tasks": N}`."""
        return self.request("GET", "/healthz", timeout=30)

    def reward(self, task, rollouts, advantages=None, speedup_clip=None):
        """POST /v1/reward for one group: the rollouts (dicts with `output` or `code`, optional
        `id`, `token_offsets`, `num_tokens`, `plan_span`) of one task. `advantages` (a dict, see
        docs/serve.md) asks for GRPO advantages and token spans as well."""
        body = {"task": task, "rollouts": rollouts}
        if advantages is not None:
            body["advantages"] = advantages
        if speedup_clip is not None:
            body["speedup_clip"] = speedup_clip
        reply = self.request("POST", "/v1/reward", body)
        if len(reply.get("rollouts", ())) != len(rollouts):
            raise TritonRLError(f"POST {self.url}/v1/reward for task {task!r}: {len(rollouts)} rollouts sent, "
                                f"{len(reply.get('rollouts', ()))} scored", url=self.url)
        return reply


def _server_error(e, where):
    """TritonRLError from an HTTP error reply, with the server's {"error": {code, field, message}}."""
    raw = e.read().decode(errors="replace")
    try:
        info = json.loads(raw).get("error", {})
    except ValueError:
        info = {}
    code, field, message = info.get("code"), info.get("field"), info.get("message") or raw.strip()
    detail = f"{code}" + (f" at {field}" if field else "")
    return TritonRLError(f"{where} -> HTTP {e.code} {detail}: {message}", status=e.code, code=code, field=field,
                         url=where.split(" ", 1)[1])
