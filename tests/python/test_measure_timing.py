"""The timing stage of the worker (python/tritonrl_runner/timing.py) on the CPU:
the real worker process driven over its pipes with a timing request, the CPU
fallback clock (host clock; the numbers mean nothing, the code paths are the
GPU's), fresh inputs, re-check samples and the trusted-clock tamper check."""
import struct
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from tritonrl_runner import timing  # noqa: E402
from worker_driver import drive_worker  # noqa: E402

TASK = '''
import torch
import torch.nn as nn
rows = 4
cols = 48
VARIANTS = {"small": {"rows": 3, "cols": 40}, "large": {"rows": 8, "cols": 64}}
class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)
def get_inputs():
    return [torch.randn(rows, cols), torch.arange(5)]
def get_init_inputs():
    return []
'''

HONEST = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

class ModelNew(nn.Module):
    def forward(self, x, idx):
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
        return y
'''

PATCHER = HONEST + '''
import time
_real = time.perf_counter_ns
time.perf_counter_ns = lambda: _real() // 100
'''

SEEDS = [710011, 710012, 710013, 710014, 710015, 710016]
RECHECK = [1, 4]
SAMPLE_SEEDS = [820211, 820212, 820213, 820214, 820215, 820216]
WARMUP_SEEDS = [930901, 930902]
asked: list[int] = []  # the worker's "call" frames, in order
answers: list[dict] = []  # the engine's answers to them


def run(tmp_path, role, candidate=None, recheck_only=False):
    task = tmp_path / "task.py"
    task.write_text(TASK.replace("def forward(self, x):", "def forward(self, x, idx):"))
    allow = tmp_path / "allow.json"
    allow.write_text((ROOT / "src" / "verify" / "allowlist.json").read_text())
    req = {"role": role, "task_path": str(task), "device": "cpu", "init_seed": 7,
           "trials": [{"seed": 1, "train": False, "grad": False}], "allowlist_path": str(allow), "perturb": 0,
           "timing": {"variant": "", "input_seed": 99, "warmup": 2,
                      "sample_count": 16, "profile_calls": 2, "baseline": "eager",
                      "recheck_only": recheck_only}}
    if candidate is not None:
        path = tmp_path / f"{role}_candidate.py"
        path.write_text(candidate)
        req["candidate_path"] = str(path)
    def go(h):  # the engine's answers (src/eval/timing_plan.h: TimingPlan, PerCallTimingPlan, CallAnswer)
        if h.get("type") == "stage" and h.get("stage") == "timing_ready":
            if recheck_only and role == "reference":
                return {"type": "go", "plan": {"seeds": SEEDS, "recheck": RECHECK,
                                               "sample_seeds": SAMPLE_SEEDS, "warmup_seeds": WARMUP_SEEDS}}
            return {"type": "go", "plan": {"warmup_seeds": WARMUP_SEEDS, "calls": len(SEEDS)}}
        if h.get("type") == "call":
            i = h["index"]
            asked.append(i)
            prev = i - 1
            answer = {"type": "call", "index": i, "seed": SEEDS[i] if i < len(SEEDS) else None,
                      "recheck_prev": prev in RECHECK}
            if prev in RECHECK:
                answer["sample_seed"] = SAMPLE_SEEDS[prev]
            answers.append(answer)
            return answer
        return None

    asked.clear()
    answers.clear()

    return drive_worker(tmp_path, req, answer=go, wait_s=60)


def test_fresh_inputs_are_new_valid_and_deterministic():
    base = [torch.randn(4, 5), torch.arange(7), 3]
    a = timing.fresh_inputs(base, 5)
    b = timing.fresh_inputs(base, 5)
    c = timing.fresh_inputs(base, 6)
    assert torch.equal(a[0], b[0]) and not torch.equal(a[0], c[0])
    assert not torch.equal(a[0], base[0])  # new values ...
    assert torch.equal(a[0].flatten().sort().values, base[0].flatten().sort().values)  # ... same distribution
    assert a[0].data_ptr() != base[0].data_ptr()
    assert torch.equal(a[1], base[1]) and a[1].data_ptr() != base[1].data_ptr()  # indices untouched
    assert a[2] == 3


def test_timed_inputs_are_no_roll_and_no_reordering_of_row_or_column_aggregates():
    """A timed call's input is not another call's (or the base) rolled, and its column and row
    sums are not theirs in another order: a candidate that cached them cannot answer a later
    call without reading it (hack adv_columnsum_timed_roll_cache paid a fake speedup while the
    inputs were rolls)."""
    base = torch.randn(24, 40)
    calls = [timing.fresh_inputs([base], seed)[0] for seed in (11, 12, 13)]
    flat_base = base.reshape(-1)
    for i, a in enumerate(calls):
        for b in [base] + calls[:i]:
            assert not any(torch.equal(torch.roll(b.reshape(-1), k), a.reshape(-1)) for k in range(a.numel()))
            for dim in (0, 1):
                mine, theirs = a.sum(dim).sort().values, b.sum(dim).sort().values
                assert not torch.allclose(mine, theirs)
        assert torch.equal(a.reshape(-1).sort().values, flat_base.sort().values)  # same values, moved


def test_scatter_positions_are_one_permutation_per_size():
    p = timing._scatter_positions(1000, torch.device("cpu"))
    assert torch.equal(p.sort().values, torch.arange(1000, dtype=p.dtype))
    assert p is timing._scatter_positions(1000, torch.device("cpu"))
    # drawn from the stage's secret input seed: a constructor cannot rebuild it in advance
    other = timing._scatter_positions(1000, torch.device("cpu"), 12345)
    assert not torch.equal(p, other) and torch.equal(other.sort().values, p.sort().values)
    base = [torch.randn(10, 10)]
    a, b, c = (timing.fresh_inputs(base, 3, s)[0] for s in (1, 2, 1))
    assert not torch.equal(a, b) and torch.equal(a, c)


def test_flush_size_and_sample_indices():
    assert timing.flush_bytes_for(50 << 20) == 256 << 20
    assert timing.flush_bytes_for(200 << 20) == 400 << 20  # at least twice the L2
    i1, i2 = timing.sample_indices(1000, 16, 3), timing.sample_indices(1000, 16, 3)
    assert torch.equal(i1, i2) and int(i1.max()) < 1000
    assert torch.equal(timing.sample_indices(5, 16, 3), torch.arange(5))


def test_flops_of_a_forward_are_counted_where_torch_knows_them():
    lin = torch.nn.Linear(32, 16, bias=False).eval()
    assert timing.count_flops(lin, [torch.randn(8, 32)]) == 2 * 8 * 32 * 16
    assert timing.count_flops(torch.nn.ReLU(), [torch.randn(8, 32)]) is None  # pointwise: not counted

    class Broken(torch.nn.Module):
        def forward(self, x):
            raise RuntimeError("no")

    assert timing.count_flops(Broken(), [torch.randn(2)]) is None


def test_trusted_clock_sees_monkeypatching():
    clock = timing.TrustedClock(torch.device("cpu"))
    assert clock.intact() == []
    import time
    saved = time.perf_counter
    try:
        time.perf_counter = lambda: 0.0
        assert clock.intact() == ["time.perf_counter"]
    finally:
        time.perf_counter = saved
    assert clock.intact() == []


def timing_frame(frames):
    kinds = [h.get("type") if h.get("type") != "stage" else "stage:" + h["stage"] for h, _ in frames]
    frames = [f for f, k in zip(frames, kinds) if k not in ("call", "span")]  # the per-call frames
    kinds = [k for k in kinds if k not in ("call", "span")]
    assert kinds[-4:] == ["stage:timing_ready", "timing", "profile", "done"], kinds
    assert frames[-2][0]["kernel_share"] is None  # no profiler on the CPU
    return frames[-3]


def test_reference_and_candidate_timing_frames_agree(tmp_path):
    ref_frames, err = run(tmp_path, "reference")
    assert asked == list(range(len(SEEDS) + 1)), asked  # the reference goes call by call too
    h, payload = timing_frame(ref_frames)
    assert h["variant"] == "small", err  # on the CPU only the small variant runs
    assert len(h["event_ms"]) == len(h["wall_ms"]) == len(h["tail_ms"]) == len(SEEDS)
    assert h["covered"] == [False] * len(SEEDS)  # no device on the CPU: the host's clock is the call
    assert h["tampered"] == [] and h["input_bytes"] == 3 * 40 * 4 + 5 * 8 and h["output_bytes"] == 3 * 40 * 4
    assert "flops" in h and h["flops"] is None  # a ReLU has no counted FLOPs
    assert [r["trial"] for r in h["rechecks"]] == [1, 4]
    cand_frames, err = run(tmp_path, "candidate", HONEST)
    ch, cpayload = timing_frame(cand_frames)
    assert ch["tampered"] == []
    assert asked == list(range(len(SEEDS) + 1)), asked  # one call frame per timed call, then the last decision
    # The re-checked samples of the timed calls equal the reference's (same inputs, same positions).
    for r, c in zip(h["rechecks"], ch["rechecks"]):
        assert r["trial"] == c["trial"] and r["shape"] == c["shape"] == [3, 40]
        rv = struct.unpack(f"{r['numel']}f", payload[r["offset"]:r["offset"] + r["nbytes"]])
        cv = struct.unpack(f"{c['numel']}f", cpayload[c["offset"]:c["offset"] + c["nbytes"]])
        assert rv == cv and any(v > 0 for v in rv)


def per_call_frames(frames):
    """The worker's per-call frames in order, as (type, index, edge)."""
    return [(h["type"], h["index"], h.get("edge")) for h, _ in frames if h.get("type") in ("call", "span")]


def test_each_timed_call_is_bracketed_by_span_frames_after_its_call_frame(tmp_path):
    # The engine clocks each timed call between its two span frames (src/eval/parent_clock.h):
    # call i is asked for, then its span begins and ends, then call i + 1 is asked for; the last
    # call frame asks for the decision on the last call and has no span. Both roles alike.
    expect = []
    for i in range(len(SEEDS)):
        expect += [("call", i, None), ("span", i, "begin"), ("span", i, "end")]
    expect.append(("call", len(SEEDS), None))
    for role, cand in (("reference", None), ("candidate", HONEST)):
        frames, err = run(tmp_path, role, cand)
        assert per_call_frames(frames) == expect, (role, err)
    only, err = run(tmp_path, "reference", recheck_only=True)  # nothing timed: no span
    assert [f for f in per_call_frames(only) if f[0] == "span"] == [], err


def test_recheck_only_reference_times_nothing_but_rechecks_the_same_outputs(tmp_path):
    # With the reference's timings cached from an earlier run, the reference only computes the
    # re-checked calls' outputs (this run's seeds); a candidate cannot ask for that mode.
    full, _ = run(tmp_path, "reference")
    h, payload = timing_frame(full)
    only, err = run(tmp_path, "reference", recheck_only=True)
    oh, opayload = timing_frame(only)
    assert oh["recheck_only"] is True and oh["event_ms"] == oh["wall_ms"] == oh["tail_ms"] == [], err
    assert oh["output_bytes"] == h["output_bytes"] and oh["input_bytes"] == h["input_bytes"]
    assert [r["trial"] for r in oh["rechecks"]] == [1, 4]
    for r, o in zip(h["rechecks"], oh["rechecks"]):
        assert payload[r["offset"]:r["offset"] + r["nbytes"]] == opayload[o["offset"]:o["offset"] + o["nbytes"]]
    cand, _ = run(tmp_path, "candidate", HONEST, recheck_only=True)
    ch, _ = timing_frame(cand)
    assert ch["recheck_only"] is False and len(ch["event_ms"]) == len(SEEDS)


def test_timer_patch_is_reported(tmp_path):
    frames, err = run(tmp_path, "candidate", PATCHER)
    h, _ = timing_frame(frames)
    assert h["tampered"] == ["time.perf_counter_ns"], err
    # The trusted clock kept measuring with the original: times are not 100x smaller.
    assert min(h["wall_ms"]) > 0


# While a timed call runs, the candidate's process holds the seed of that call and nothing
# later: not the next calls' seeds, not which calls are re-checked, not the sampled positions.
SNOOPER = HONEST + '''
import gc, json, os, sys

def _ints_in(o):
    vals = o.values() if isinstance(o, dict) else o
    out = []
    for v in vals:
        if isinstance(v, list):
            out.extend(w for w in v if isinstance(w, int))
        elif isinstance(v, int):
            out.append(v)
    return out

_SEEN = []

class Snooping(ModelNew):
    def forward(self, x, idx):
        found = set()
        frame, containers = sys._getframe(), list(gc.get_objects())
        while frame is not None:  # the worker's own locals, as a frame-walking cheat sees them
            containers.append(dict(frame.f_locals))
            frame = frame.f_back
        for o in containers:
            if isinstance(o, (dict, list, tuple, set)):
                found.update(v for v in _ints_in(o) if 710000 < v < 710100 or 820200 < v < 820300)
        _SEEN.append(sorted(found))
        with open(os.environ["HOME"] + "/seen.json", "w") as f:
            f.write(json.dumps(_SEEN))
        return super().forward(x, idx)

ModelNew = Snooping
'''


def test_a_snooper_looking_for_seeds_is_refused_at_its_first_look(tmp_path):
    # A candidate that walks the worker's stack and heap for the seeds of later timed calls (and
    # for which calls are re-checked). No later seed is there to find (the engine sends each one
    # with its call, and re-check decisions after the call: src/eval/worker_driver.cpp), and the
    # worker's audit hook refuses the look itself: the first trial ends in an error frame naming
    # the refused call, before any timing.
    frames, err = run(tmp_path, "candidate", SNOOPER)
    kinds = [h.get("type") if h.get("type") != "stage" else "stage:" + h["stage"] for h, _ in frames]
    assert kinds[-1] == "error" and "timing" not in kinds, (kinds, err)
    last = frames[-1][0]
    assert "InternalAccessRefused" in last.get("exc_type", "") + last.get("message", ""), last
    assert "sys._getframe" in last["message"], last
    assert not (tmp_path / "seen.json").exists()  # it never got as far as writing what it saw


def test_every_timed_position_is_a_model_call_and_no_answer_marks_one_apart(tmp_path):
    # Nothing a worker is sent during its timed calls distinguishes one call from another (there
    # are no null calls to find and slow): every answer has the same fields, every position runs
    # the model, and the reference's cycle (the engine's baseline) is the candidate's.
    calls_file = tmp_path / "calls.txt"
    counting = HONEST.replace("    def forward(self, x, idx):\n",
                              "    def forward(self, x, idx):\n"
                              f"        open({str(calls_file)!r}, 'a').write('x')\n", 1)
    assert counting != HONEST
    frames, err = run(tmp_path, "candidate", counting)
    h, payload = timing_frame(frames)
    assert asked == list(range(len(SEEDS) + 1)), (asked, err)
    cand_answers = [dict(a) for a in answers]
    assert {frozenset(a) - {"sample_seed"} for a in cand_answers} == {
        frozenset({"type", "index", "seed", "recheck_prev"})}, cand_answers
    assert [r["trial"] for r in h["rechecks"]] == RECHECK, h["rechecks"]
    ref, _ = run(tmp_path, "reference")
    assert answers == cand_answers  # the same exchange, call for call
    rh, rpayload = timing_frame(ref)
    for c, r in zip(h["rechecks"], rh["rechecks"]):  # the same sampled values as the reference's
        assert payload[c["offset"]:c["offset"] + c["nbytes"]] == rpayload[r["offset"]:r["offset"] + r["nbytes"]]
    # Correctness trial + warm-up + timed calls + profile (none on the CPU): one forward per position.
    forwards_in_timing = len(calls_file.read_text()) - 1
    assert forwards_in_timing == 2 + len(SEEDS), forwards_in_timing


# Torch in one timed call only (the timed instance's 5th call: 2 warm-up calls, then timed call 2),
# a kernel that copies a torch result in another (timed call 4): with a drawn subset of timed calls
# audited, most such calls went unseen (issue 34).
ONE_CALL_TORCH = HONEST.replace('''class ModelNew(nn.Module):
    def forward(self, x, idx):
        y = torch.empty_like(x)''', '''class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x, idx):
        self.calls += 1
        y = torch.empty_like(x)
        if self.calls == 5:
            relu_kernel[(1,)](x, y, 1, BLOCK=64)
            return x * (x > 0)
        if self.calls == 7:
            t = x.clamp(min=0)
            relu_kernel[(triton.cdiv(x.numel(), 64),)](t, y, x.numel(), BLOCK=64)
            return y''')


def test_every_timed_call_runs_under_the_trials_audit(tmp_path):
    # The engine's answers say nothing about auditing (none in this test's either): every call of
    # the stage, warm-up and timed, runs under the ATen audit, the launch recorder's writer proof
    # and the call monitor, and the frame carries what they found (src/eval/timing_verdict.cpp).
    frames, err = run(tmp_path, "candidate", HONEST)
    h, _ = timing_frame(frames)
    assert h["audited_calls"] == len(SEEDS) and h["audit_intact"] is True, (h, err)
    assert h["audited_forbidden_ops"] == [] and h["audited_without_launch"] == 0 and h["audited_state_changed"] == 0
    g = h["audited_guards"]
    assert g["output_writers"] == ["kernel"] and g["host_calls"] == g["internal_calls"] == g["module_hooks"] == [], g
    assert len(h["audit_ms"]) == len(SEEDS) and all(a > 0 for a in h["audit_ms"]), h["audit_ms"]
    assert "audit" not in answers[0]
    frames, err = run(tmp_path, "candidate", ONE_CALL_TORCH)
    h, _ = timing_frame(frames)
    assert h["audited_calls"] == len(SEEDS), (h, err)
    assert h["audited_forbidden_ops"] == ["aten::clamp", "aten::gt", "aten::mul"], h["audited_forbidden_ops"]
    # The guard fields of the first call with a finding: timed call 2, whose output torch wrote.
    assert h["audited_guards"]["call"] == 2 and h["audited_guards"]["output_writers"] == ["torch:mul"], h
    ref_frames, _ = run(tmp_path, "reference")
    rh, _ = timing_frame(ref_frames)
    assert rh["audited_calls"] == 0  # the trusted reference runs no audit


# A constructor that loops only when it runs a second time: the trials' model is the first, the
# timing stage's the second (docs/eval.md, the host-step budget).
SECOND_BUILD_LOOP = HONEST.replace('''class ModelNew(nn.Module):
    def forward(self, x, idx):''', '''class ModelNew(nn.Module):
    builds = 0

    def __init__(self):
        super().__init__()
        ModelNew.builds += 1
        total = 0
        if ModelNew.builds > 1:
            for i in range(1000):
                total += i
        self.total = total

    def forward(self, x, idx):''')


def test_the_timed_models_constructor_has_its_host_steps_counted(tmp_path):
    assert SECOND_BUILD_LOOP != HONEST
    frames, err = run(tmp_path, "candidate", HONEST)
    h, _ = timing_frame(frames)
    [[steps, launches]] = h["audited_build_host_steps"]
    assert steps < 50 and launches == 0, (h["audited_build_host_steps"], err)
    frames, err = run(tmp_path, "candidate", SECOND_BUILD_LOOP)
    h, _ = timing_frame(frames)
    [[steps, launches]] = h["audited_build_host_steps"]
    assert steps >= 1000 and launches == 0, (h["audited_build_host_steps"], err)


# Work hung on the previous call's output, run when the worker lets that output go (the tenth
# review's generator `finally`, here a weakref finaliser): a sleep stands for the work.
FINALISED_LATE = HONEST.replace('''class ModelNew(nn.Module):
    def forward(self, x, idx):''', '''import time
import weakref


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.last = None

    def forward(self, x, idx):
        if self.last is not None and self.last() is not None:
            weakref.finalize(self.last(), time.sleep, 0.05)''').replace('''        return y''', '''        self.last = weakref.ref(y)
        return y''')


def test_what_the_previous_calls_release_runs_is_inside_a_timed_span(tmp_path):
    # The worker keeps each call's inputs and output alive until the next call's model returns and
    # drops them there, inside that call's audit and timed span: work deferred to their release
    # is timed (and audited), not done between calls before the re-check sample is taken.
    assert FINALISED_LATE != HONEST
    frames, err = run(tmp_path, "candidate", HONEST)
    honest, _ = timing_frame(frames)
    frames, err = run(tmp_path, "candidate", FINALISED_LATE)
    h, _ = timing_frame(frames)
    assert len(h["wall_ms"]) == len(SEEDS), err
    assert min(h["wall_ms"]) >= 45.0 > max(honest["wall_ms"]), (h["wall_ms"], honest["wall_ms"], err)
