"""The kernel-share pass's event method (timing._event_share) on the CPU. There is no CUDA here,
so the device clock is a stand-in (events stamped with a device time the test advances); the
launch recorder and its Triton launch hooks are the real ones. Each case runs in a child process,
since the recorder patches Triton's classes for the life of its process."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
from tritonrl_runner import hooks, timing

CAND = "/sandbox/candidate.py"
now = [0.0]  # the device's clock, in ms


class Event:
    def __init__(self, enable_timing=False):
        self.t = None


class Clock:
    """TrustedClock's CUDA surface, on a device whose time the test advances."""
    def __init__(self, started_early):
        self.started_early = started_early  # the device reached the call before it was queued
        self.event_cls = Event
        self.sleeps = []
        self.cur = "stream0"
    def current_stream(self): return self.cur
    def record(self, ev, stream): ev.t = now[0]
    def ev_query(self, ev): return self.started_early
    def ev_sync(self, ev): pass
    def sync(self): pass
    def elapsed(self, a, b): return b.t - a.t
    def gpu_sleep(self, cycles): self.sleeps.append(cycles)
    def cover_cycles(self, us): return int(us)


def fn_in(path, name):
    code = compile("def f(): pass", path, "exec")
    ns = {}
    exec(code, ns)
    f = ns["f"]
    f.__name__ = name
    return f


rec = hooks.LaunchRecorder()
own, foreign = fn_in(CAND, "fused_kernel"), fn_in("/elsewhere/lib.py", "lib_kernel")


def launch(fn, ms):
    # What Triton's launcher does around one launch of fn: enter hook, the kernel, exit hook.
    rec._span_fn = fn
    rec._on_launch(None)
    now[0] += ms
    rec._on_exit(None)
    rec._span_fn = None


def model(work):
    def forward(x):
        for kind, ms in work:
            if kind == "own":
                launch(own, ms)
            elif kind == "own_side":  # launched while another stream is current
                clock.cur = "side"
                launch(own, ms)
                clock.cur = "stream0"
            elif kind == "foreign":
                launch(foreign, ms)
            else:  # torch's own kernels, or anything outside a launch
                now[0] += ms
    return forward


case = json.loads(sys.argv[2])
if case.get("extra_hook"):
    import triton.knobs as knobs
    knobs.runtime.launch_enter_hook.add(lambda metadata: None)
clock = Clock(case.get("started_early", False))
got = timing._event_share(clock, model(case["work"]), [[0]] * case.get("calls", 2), rec, CAND,
                          case.get("host_ms", 0.1))
print(json.dumps({"got": got, "sleeps": clock.sleeps, "spans_left": len(rec.spans)}))
'''


def run_case(case: dict) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "python"), json.dumps(case)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_share_is_own_kernel_time_over_the_call():
    r = run_case({"work": [["torch", 1.0], ["own", 3.0], ["foreign", 0.5], ["own", 0.5]], "calls": 2})
    share, own_ms, total_ms, top = r["got"]
    assert abs(own_ms - 7.0) < 1e-9  # 2 calls x (3 + 0.5) ms
    assert abs(total_ms - 10.0) < 1e-9  # 2 calls x 5 ms, torch and foreign kernels included
    assert abs(share - 0.7) < 1e-9
    assert top[0] == ["fused_kernel", 7.0]
    assert top[1] == ["(not the candidate's kernels)", 3.0]
    # Every call ran behind a busy-wait sized from the host's time (3x, at least 0.2 ms).
    assert r["sleeps"] == [300, 300]


def test_a_kernel_of_another_file_is_not_the_candidates():
    share, own_ms, _, _ = run_case({"work": [["foreign", 2.0], ["torch", 2.0]]})["got"]
    assert share == 0.0 and own_ms == 0.0


def test_an_uncovered_call_leaves_the_share_to_the_profiler():
    # The device reached the call's start before the host had queued it (the call synchronised,
    # or its host side outlasted the busy-wait): the events could count launch gaps as kernel
    # time, so the method gives up after growing the busy-wait to its limit.
    r = run_case({"work": [["own", 1.0]], "started_early": True, "host_ms": 1.0})
    assert r["got"] is None
    assert r["sleeps"] == [3000, 12000, 48000]  # 3 ms, then four times longer, three tries


def test_a_launch_on_another_stream_leaves_the_share_to_the_profiler():
    # Its kernel would run outside the span the events measure.
    r = run_case({"work": [["own", 1.0], ["own_side", 1.0], ["torch", 5.0]]})
    assert r["got"] is None


def test_a_foreign_launch_hook_leaves_the_share_to_the_profiler():
    # A hook of the candidate's in Triton's chain would run between our event and the kernel.
    r = run_case({"work": [["own", 1.0]], "extra_hook": True})
    assert r["got"] is None and r["sleeps"] == []
