"""The timing and profiling stage of an evaluation worker (docs/measurement.md).

The engine (src/eval) asks for it by putting a ``timing`` object in the
request. After the correctness trials the worker sends ``stage timing_ready``
and blocks until the engine, holding the GPU's exclusive timing lease, answers
with a ``go`` frame carrying the plan; the engine's own clock runs from that
frame until the ``timing`` frame arrives, and bounds what this process reports.
The plan of a ``go`` frame holds only the warm-up seeds and the number of
calls, for the reference and a candidate alike: before call i the worker sends
``call`` i and gets that call's seed back together with the decision on call
i-1 (re-checked or not, and the seed of the sampled positions); ``call`` N after
the last call gets the last decision. So while a call runs, nothing in the
process tells whether its output will be looked at, or where; and every call is
a model call, so nothing it is sent marks one call apart from another. The
engine clocks each cycle between ``call`` frames; the reference's cycles, the
same steps in a trusted process, tell it how much of a cycle is not the call.
Only a reference whose timings the engine holds from an earlier run gets the
whole plan at once (it re-checks, times nothing).

Protocol of one timing stage (reference and candidate alike):

* a FRESH model instance for the timed variant (instance caches start empty);
* warm-up calls through exactly the steps of a timed call, discarded: they
  run the timed shape's compilation and Triton's autotuning (the only shape
  that is timed) and every lazily initialised path before timing starts;
* ``trials`` timed calls, each: new input values (the task's inputs for the
  variant, rolled by a per-trial offset drawn from the trial seed and
  scattered by the stage's secret permutation, in new storage, the previous
  trial's inputs and outputs kept alive so no pointer repeats, and dropped
  inside the next call's audited window),
  persisting-L2 limit set to 0 and reset, a device-wide synchronise, the
  clock, a pre event, a device busy-wait of the request's ``cover_us`` (the
  launch cover, the same for the reference and the candidate: the host queues
  the whole call, audit included, while the device waits, so the events
  around it time its device work; docs/measurement.md "The device clock"),
  the L2 flush (writing a buffer of at least twice the device's L2), the
  start event, ``forward``, whether the start event was still pending when
  ``forward`` returned (``covered``), the end event,
  ``end.synchronize()``, the clock (``event_done``), a device-wide synchronise
  and the clock again. ``tail`` = time the device still had work after the end
  event had completed (side streams, work queued after return). A re-checked
  call's output is sampled after all that, outside every timed span;
* the ``timing`` frame (the engine then releases the lease), then a profiler
  pass over a few calls, sent as a ``profile`` frame: the share of GPU time in
  kernels whose names are the candidate's own launched ``@triton.jit``
  functions.

Every clock and CUDA entry point used here is captured by ``TrustedClock``
before the candidate is imported; a candidate that replaces them changes
nothing measured here and is reported (``timers_intact`` false). Everything
this process sends is still untrusted: the engine checks it against its own
clock and the reference process (src/eval/timing.h).
"""

from __future__ import annotations

import ctypes
import os
import time

import torch

from tritonrl_runner import trusted

_CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
_MIN_FLUSH_BYTES = 256 << 20  # as KernelBench; also long enough to hide launch latency
_CPU_FLUSH_BYTES = 16 << 20  # CPU fallback (tests): larger than a typical L2
# The timed calls' cover is a fixed number of SM clock cycles, cover_us at this clock (the H100's
# and H200's boost clock, 1.98 GHz; longer at a lower clock), not a per-process calibration: the
# parent clock compares the candidate's spans with the reference's, so both covers must last as
# long, and a calibration taken while the GPU idled at a low clock made one worker's cover 0.2-0.7
# ms instead of 1 ms (row 9b's first run, bench/RESULTS.md, 2026-12-07).
_NOMINAL_CYCLES_PER_US = 1980.0
_MAX_COVER_US = 50_000.0  # the kernel-share pass's longest busy-wait (cover_cycles caps at 1e8 cycles)


def _os_threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return -1


class TrustedClock:
    """References to the clocks and CUDA entry points, taken before the
    candidate is imported (it may monkeypatch the public names)."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.cuda = device.type == "cuda"
        self.perf_ns = time.perf_counter_ns
        self._watched = self._public()
        if self.cuda:
            # The C-level entry points under the public wrappers (which a
            # candidate could replace, or make resolve a replaced name).
            base = torch._C._CudaEventBase
            self._c_sync = torch._C._cuda_synchronize
            self.event_cls = torch.cuda.Event
            self._c_record = base.record
            self.ev_sync = base.synchronize
            self.ev_query = base.query
            self.elapsed = base.elapsed_time
            self.current_stream = torch.cuda.current_stream
            self.gpu_sleep = torch._C._cuda_sleep
            self.sync = lambda: self._c_sync()
            self.record = lambda ev, stream: self._c_record(ev, stream)
            self.l2_bytes = int(torch.cuda.get_device_properties(device).L2_cache_size)
        else:
            self.sync = lambda *a: None
            self.l2_bytes = 0
        self.libcuda = None
        if self.cuda:
            try:
                self.libcuda = ctypes.CDLL("libcuda.so.1")
            except OSError:
                self.libcuda = None

    @staticmethod
    def _public() -> dict:
        watched = {
            "time.perf_counter": time.perf_counter,
            "time.perf_counter_ns": time.perf_counter_ns,
            "time.time": time.time,
            "time.monotonic": time.monotonic,
            "torch.cuda.synchronize": torch.cuda.synchronize,
            "torch.cuda.Event": torch.cuda.Event,
            "torch.cuda.Event.record": torch.cuda.Event.record,
            "torch.cuda.Event.elapsed_time": torch.cuda.Event.elapsed_time,
            "torch.cuda.Event.synchronize": torch.cuda.Event.synchronize,
            "torch.cuda.current_stream": torch.cuda.current_stream,
            "torch.cuda.Stream.synchronize": torch.cuda.Stream.synchronize,
        }
        return watched

    def intact(self) -> list[str]:
        """Names of watched entry points that no longer are the originals."""
        now = self._public()
        return sorted(k for k, v in self._watched.items() if now.get(k) is not v)

    def cover_cycles(self, target_us: float) -> int:
        """Device clock cycles of a busy-wait lasting about target_us (measured, since the SM
        clock varies); 0 on the CPU."""
        if not self.cuda or target_us <= 0:
            return 0
        probe = 1_000_000
        start, end = self.event_cls(enable_timing=True), self.event_cls(enable_timing=True)
        for _ in range(2):  # the first launch loads the kernel
            self._c_record(start, self.current_stream())
            self.gpu_sleep(probe)
            self._c_record(end, self.current_stream())
            self.ev_sync(end)
        per_us = probe / max(1e-3, float(self.elapsed(start, end)) * 1000.0)
        return int(min(max(per_us * target_us, 1e4), 1e8))

    def reset_persisting_l2(self) -> bool:
        if self.libcuda is None:
            return False
        ok = self.libcuda.cuCtxSetLimit(_CU_LIMIT_PERSISTING_L2_CACHE_SIZE, ctypes.c_size_t(0)) == 0
        return bool(self.libcuda.cuCtxResetPersistingL2Cache() == 0 and ok)


def flush_bytes_for(l2_bytes: int) -> int:
    """At least twice the L2 (and never below 256 MiB on a GPU)."""
    if l2_bytes <= 0:
        return _CPU_FLUSH_BYTES
    return max(2 * l2_bytes, _MIN_FLUSH_BYTES)


def fresh_inputs(base: list, seed: int, scatter_seed: int = 0) -> list:
    """New storage and new values for one timed call: each floating tensor with more than one
    element is rolled (flattened) by an offset drawn from the seed and then scattered by a
    random permutation of its positions (_scatter_positions); integer tensors (indices) and
    scalars are copied unchanged, so every input stays valid for the task. A roll alone (eval/33
    and before) kept every column of a matrix whole and every row in order, so a column sum, row
    sum or prefix of a later call was an earlier call's moved, which a candidate that cached them
    returned without reading the input (hack adv_columnsum_timed_roll_cache); an affine map of
    the positions keeps columns whole too (i -> a i + b moves residues mod the row length
    together). After the permutation each row and column of a call draws its elements from all
    over the base, at places that move with the call's offset. The permutation comes from
    `scatter_seed` (the stage's run-secret input seed), so a constructor cannot rebuild it in
    advance. Deterministic: the reference process derives the same inputs from the same seeds."""
    g = torch.Generator().manual_seed(int(seed) & ((1 << 63) - 1))
    out = []
    for x in base:
        if isinstance(x, torch.Tensor):
            if x.is_floating_point() and x.numel() > 1:
                k = int(torch.randint(1, x.numel(), (1,), generator=g).item())
                rolled = torch.roll(x.reshape(-1), k)
                positions = _scatter_positions(x.numel(), x.device, scatter_seed)
                out.append(rolled.index_select(0, positions).reshape(x.shape))
            else:
                out.append(x.clone())
        else:
            out.append(x)
    return out


_SCATTER: dict = {}  # (elements, device, seed) -> the permutation, made once per process


def _scatter_positions(n: int, device, seed: int = 0):
    """A random permutation of range(n) drawn from `seed`, the same in both workers (the offset
    drawn per call is what makes calls differ; the permutation breaks rows and columns apart).
    Made once per size, device and seed, on the device (an H100 made one of 16M positions in
    about 2 ms), as int32 where n allows (half the memory of int64)."""
    key = (n, str(device), seed)
    positions = _SCATTER.get(key)
    if positions is None:
        g = torch.Generator(device=device).manual_seed((0x5CA77E12 ^ n ^ int(seed)) & ((1 << 63) - 1))
        dtype = torch.int32 if n < (1 << 31) else torch.int64
        positions = torch.randperm(n, generator=g, device=device, dtype=dtype)
        if len(_SCATTER) >= 8:
            _SCATTER.clear()
        _SCATTER[key] = positions
    return positions


def sample_indices(numel: int, count: int, seed: int) -> torch.Tensor:
    """Positions of an output compared in a re-check (same in both processes)."""
    g = torch.Generator().manual_seed((int(seed) * 7919 + 17) & ((1 << 63) - 1))
    if numel <= count:
        return torch.arange(numel)
    return torch.randint(0, numel, (count,), generator=g)


def _flatten(out) -> list:
    """A call's outputs, read only through exact tuples and lists: a subclass's __iter__ would run
    the candidate's code after the timed span (it stays one opaque item, which no snapshot
    accepts)."""
    if type(out) is list or type(out) is tuple:
        return [t for o in out for t in _flatten(o)]
    return [out]


def _snapshot(out, seed: int, count: int) -> list:
    """Sampled values of every output at positions drawn from `seed` (a sample
    seed the engine sends after the call, so the positions are unknown while it
    runs)."""
    snaps = []
    for o in _flatten(out):
        if type(o) is not torch.Tensor:
            snaps.append(None)
            continue
        flat = o.detach().reshape(-1)
        idx = sample_indices(flat.numel(), count, seed).to(flat.device)
        snaps.append((flat.index_select(0, idx), list(o.shape)))
    return snaps


def _own_kernel_share(prof, own_names: set[str]) -> tuple[float | None, float, float, list]:
    """Share of device time in kernels named like the candidate's own functions."""
    own = total = 0.0
    names: dict[str, float] = {}
    for e in prof.events():
        dt = getattr(e, "device_type", None)
        if dt is None or "CUDA" not in str(dt):
            continue
        t = float(e.time_range.elapsed_us())  # a device-side event: its own span
        if t <= 0:
            continue
        total += t
        names[e.name] = names.get(e.name, 0.0) + t
        if e.name in own_names:
            own += t
    top = sorted(names.items(), key=lambda kv: -kv[1])[:8]
    return (own / total if total > 0 else None), own / 1000.0, total / 1000.0, [[n[:100], round(t / 1000.0, 4)] for n, t in top]


def _event_share(clock: TrustedClock, model, calls: list, recorder, cand_file, host_ms: float):
    """The kernel share from CUDA events: each call runs behind a device busy-wait long enough
    for the host to queue the whole call before the device reaches it (checked: the call's start
    event must still be pending once everything is queued), so its device work runs back to back
    and the events measure device time, not launch gaps. Own time is the sum of the spans
    bracketing the candidate's own launches, total time the call's span. None when a call could
    not be covered (it synchronised, or its host side outlasted the longest busy-wait)."""
    if not recorder.hooks_alone():
        return None
    stream = clock.current_stream()
    off_stream = [False]  # a launch while another stream was current: its work is not in our span

    def mark():
        if clock.current_stream() != stream:
            off_stream[0] = True
        ev = clock.event_cls(enable_timing=True)
        clock.record(ev, stream)
        return ev

    # Three times the host's whole synchronised call (device time included) is ample; each
    # miss quadruples it, up to the longest busy-wait cover_cycles gives (about 50 ms).
    cover_us = min(max(200.0, 3000.0 * host_ms), _MAX_COVER_US / 4)
    cycles = clock.cover_cycles(cover_us)
    own = total = 0.0
    names: dict[str, float] = {}
    for x in calls:
        for _ in range(3):
            clock.sync()
            recorder.spans = []
            clock.gpu_sleep(cycles)
            start = mark()
            recorder.span_mark = mark
            try:
                model(*x)
            finally:
                recorder.span_mark = None
            end = mark()
            covered = not clock.ev_query(start) and clock.current_stream() == stream
            clock.ev_sync(end)
            clock.sync()
            if covered:
                break
            if cover_us >= _MAX_COVER_US:
                return None
            cover_us = min(cover_us * 4, _MAX_COVER_US)
            cycles = clock.cover_cycles(cover_us)
        else:
            return None
        if off_stream[0]:
            return None
        total += float(clock.elapsed(start, end))
        for fn, before, after in recorder.spans:
            code = getattr(fn, "__code__", None)
            if code is None or code.co_filename != cand_file:
                continue
            t = float(clock.elapsed(before, after))
            own += t
            name = getattr(fn, "__name__", "?")
            names[name] = names.get(name, 0.0) + t
    own = min(own, total)
    if total - own > 0:
        names["(not the candidate's kernels)"] = total - own
    top = sorted(names.items(), key=lambda kv: -kv[1])[:8]
    return (own / total if total > 0 else None), own, total, [[n[:100], round(t, 4)] for n, t in top]


def count_flops(model, inputs: list) -> float | None:
    """FLOPs of one forward as torch.utils.flop_counter counts them (matmul, convolution,
    attention); None when it counts nothing or fails (the roofline then uses bytes only)."""
    from torch.utils.flop_counter import FlopCounterMode

    try:
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            model(*inputs)
        total = float(counter.get_total_flops())
    except Exception:  # noqa: BLE001 - a count is optional
        return None
    return total if total > 0 else None


def timed_variant(names: list[str]) -> str:
    """The variant that is timed: "large" when the task has it, else the last
    (the engine's TimedVariant; both workers pick the same)."""
    return "large" if "large" in names else names[-1]


class _AuditedCalls:
    """Every call of a candidate's timing stage, warm-up and timed, runs as a trial runs (issue 34):
    under the ATen audit, the launch recorder with its output-writer proof and the call monitor's
    call window, with the forward-hook, global-state and integrity checks around it. No call is
    left out, so there is nothing for the candidate to tell apart (a drawn subset, as before, left
    a candidate that used torch in one timed call a 9 in 10 chance per call of going unseen), and
    nothing the engine sends decides whether a call is audited.

    What runs inside a timed span: `forward` only (the dispatch mode entered around the model call,
    and the audit's callbacks: one per ATen op, per launch and per call the candidate's code
    makes). Resetting the records, the hook scan, the global-state read and the monitor's window
    open before the clock starts (`begin`); closing them, the output writers and the integrity
    checks after it stopped (`end`). The callbacks' own time is measured (the recorder's and the
    monitor's clocks, taken before the candidate was imported) and reported per timed call
    (`audit_ms`), never taken off: it is host time, which a GPU span of device events holds only
    where the host falls behind the device, and the engine's own clock of each call holds all of
    it (docs/measurement.md, "Every timed call audited")."""

    def __init__(self, model, recorder, op_audit, monitor, cand_file, cuda: bool) -> None:
        self.model, self.recorder, self.op_audit, self.monitor = model, recorder, op_audit, monitor
        self.cand_file, self.cuda = cand_file, cuda
        self.on = recorder is not None and op_audit is not None and monitor is not None
        self.calls, self.without_launch, self.state_changed, self.intact = 0, 0, 0, True
        self.forbidden: set[str] = set()
        self.held_tables: list[str] = []  # the timed model's constructor's (hooks.HeldWatch)
        self.build_steps = 0  # the timed model's constructor's host steps (CallMonitor.steps)
        self.guards: dict | None = None  # the guard fields of the first call with a finding, else of the last
        self.steps: list[list[int]] = []  # per audited call: [host steps (CallMonitor.steps), launches]
        self._found = False
        self.audit_ms: list[float] = []  # per timed call: the audit's own time inside the timed span
        self._hooks: list = []
        self._state = None
        self._mode_intact = False

    def begin(self, x) -> None:
        """Outside the timed span, before the clock starts; `x` the call's inputs."""
        if not self.on:
            return
        from tritonrl_runner import hooks

        rec, op_audit = self.recorder, self.op_audit
        rec.reset(x)
        op_audit.reset_call()
        self._hooks = hooks.module_hooks(self.model)
        self._state = hooks.global_state()
        self._mode_intact = False
        self.monitor.start_call()
        rec.audit_ns = self.monitor.audit_ns = 0
        rec.recording = True

    def forward(self, x, release: list):
        """The model call, inside the timed span. `release` holds the only references to the
        previous call's inputs and outputs (kept alive so that no pointer repeats), dropped here
        after the model returns: whatever candidate code their release runs (a finaliser or a
        generator's `finally` hung on an output; hack adv_matmul_timed_work_in_output_finalizer)
        runs inside this call's audit and timed span, not between calls, where it could finish
        the previous call's output before its re-check sample unaudited and untimed."""
        if not self.on:
            out = self.model(*x)
            release.clear()
            return out
        from torch.utils._python_dispatch import _get_current_dispatch_mode

        with self.op_audit:
            out = self.model(*x)
            release.clear()
            self._mode_intact = _get_current_dispatch_mode() is self.op_audit
        return out

    def end(self, out, i: int) -> None:
        """Outside the timed span: the call's checks (as a trial's, src/eval/proof_of_work.cpp),
        folded into the stage's."""
        if not self.on:
            return
        from tritonrl_runner import hooks, trusted

        rec, monitor = self.recorder, self.monitor
        rec.recording = False
        monitor.stop_call()
        audit_ms = (rec.audit_ns + monitor.audit_ns) / 1e6
        state_changed = hooks.global_state() != self._state
        try:
            writers = rec.output_writers(trusted.exact_outputs(out))
        except TypeError:  # not exactly tensors: no writer proof for it (the re-check fails it too)
            writers = ["none"]
        guards = {"call": i, "output_writers": writers,
                  "module_hooks": sorted(set(self._hooks + hooks.module_hooks(self.model))),
                  "host_calls": list(monitor.host) + self.op_audit.host_reads,
                  "internal_calls": list(monitor.internal)}
        self.steps.append([monitor.steps, rec.launch_total()])
        finding = (any(w != "kernel" for w in writers) or guards["module_hooks"] or guards["host_calls"]
                   or guards["internal_calls"])
        if not self._found:
            self.guards, self._found = guards, bool(finding)
        own = any(f == self.cand_file for _, f in rec.launches) and (not self.cuda or rec.c_launches > 0)
        self.without_launch += not own
        self.forbidden |= self.op_audit.forbidden
        self.state_changed += state_changed
        self.intact = self.intact and self._mode_intact and monitor.intact() and rec.intact()
        if i >= 0:
            self.calls += 1
            self.audit_ms.append(round(audit_ms, 4))

    def header(self) -> dict:
        if not self.on:
            return {"audited_calls": 0}
        return {"audited_calls": self.calls, "audited_forbidden_ops": sorted(self.forbidden),
                "audited_held_tables": list(self.held_tables),
                "audited_build_host_steps": [[int(self.build_steps), 0]],
                "audited_without_launch": self.without_launch, "audit_intact": bool(self.intact),
                "audited_state_changed": self.state_changed,
                "audited_guards": dict(self.guards, host_steps=self.steps) if self.guards else {},
                "audit_ms": self.audit_ms}


def run_stage(worker, task, taskmod, cls, device, dtype, clock: TrustedClock, names: list[str], recorder=None,
              cand_file=None, op_audit=None, monitor=None) -> None:
    """Runs the timing stage and sends its frames (see the module docstring). What the candidate's
    code has held (its constructor's arguments, the model, the last timed call's inputs) and the
    last timed call's CUDA events stay referenced from this frame: a finalizer the candidate hung
    on one of them runs no sooner than the profiler pass (the last inputs, when its loop rebinds
    x) or the end of the stage, never between the timed calls and the timing frame."""
    spec = worker.req["timing"]
    variant = spec.get("variant") or timed_variant(names)
    sample_count = int(spec.get("sample_count", 4096))
    warmup = max(1, int(spec.get("warmup", 5)))
    profile_calls = int(spec.get("profile_calls", 3))
    # The engine holds this reference's timings from an earlier run: only the re-checked calls'
    # outputs are needed (they depend on this run's secret seeds), nothing is timed.
    recheck_only = bool(spec.get("recheck_only")) and worker.role == "reference"
    # Everything that does not need the GPU to itself happens before the lease.
    t_stage = clock.perf_ns()
    init, model, base, flops, ctor_forbidden, ctor_held, ctor_steps = _set_up(
        worker, task, taskmod, cls, device, dtype, spec, variant, recheck_only, op_audit, monitor)
    input_bytes = sum(x.numel() * x.element_size() for x in base if isinstance(x, torch.Tensor))
    flush_n = flush_bytes_for(clock.l2_bytes)
    flush = torch.empty(flush_n // 4, dtype=torch.int32, device=device)
    stream_before = clock.current_stream() if clock.cuda else None
    clock.sync()
    # The cover's length is the engine's (TimingOptions::cover_us, in every request it sends);
    # a request without one (a test driving the worker directly) gets none.
    cover, plan = _await_go(worker, clock, variant, float(spec.get("cover_us", 0.0)))
    warm_seeds, call_plan = _call_plan(plan, warmup, recheck_only)
    audited = _AuditedCalls(model, recorder, op_audit, monitor, cand_file, clock.cuda)
    scatter_seed = int(spec["input_seed"])  # the timed inputs' permutation (fresh_inputs)
    # The timed model's constructor's findings count as the audited calls' (audited_forbidden_ops).
    audited.forbidden |= set(ctor_forbidden)
    audited.held_tables = ctor_held
    audited.build_steps = ctor_steps
    (event_ms, wall_ms, tail_ms, covered, warm_ms, l2_reset, threads_before, threads_after, stream_changed,
     output_bytes, snapshots, x, pre, start, end) = _timed_calls(worker, clock, audited, base, flush, stream_before, cover,
                                                   sample_count, recheck_only, call_plan, scatter_seed)

    header = {
        "type": "timing", "variant": variant, "device": str(device),
        "event_ms": event_ms, "wall_ms": wall_ms, "tail_ms": tail_ms, "covered": covered,
        "warmup_calls": warmup, "warmup_ms": round(warm_ms, 3),
        "stage_ms": round((clock.perf_ns() - t_stage) / 1e6, 3),
        "l2_bytes": clock.l2_bytes, "flush_bytes": flush_n, "l2_persist_reset": bool(clock.cuda and l2_reset),
        "tampered": clock.intact(), "threads_before": threads_before, "threads_after": threads_after,
        "stream_changed": bool(stream_changed),
        "input_bytes": int(input_bytes), "output_bytes": int(output_bytes), "flops": flops,
        "recheck_only": recheck_only,
        **audited.header(),
    }
    described, payload = _rechecks(snapshots)
    header["rechecks"] = described
    worker.send(header, payload)

    # Kernel share, after the engine released the lease: the share of the calls' device time
    # spent in the candidate's own kernels. CUDA events around each own launch first (covered
    # calls, milliseconds); the profiler only when a call could not be covered, since a
    # process's first profiler pass costs 4-6 s (bench/results/gpu10_profile_cost.txt).
    share = own_ms = total_ms = None
    top: list = []
    profile_error = ""
    method = ""
    if clock.cuda and profile_calls > 0 and recorder is not None:
        # Inputs first: only the calls' own device work is measured.
        calls = [fresh_inputs(base, warm_seeds[i % len(warm_seeds)] ^ 0x3C3C3C3C, scatter_seed)
                 for i in range(profile_calls)]
        got, profile_error = _try_event_share(clock, model, calls, recorder, cand_file, max(wall_ms, default=0.0))
        if got is not None:
            (share, own_ms, total_ms, top), method = got, "events"
        if method == "":
            # Here rather than in a function of its own: its loop rebinds x (see above).
            try:
                from torch.profiler import ProfilerActivity, profile

                clock.sync()
                with torch.no_grad():
                    recorder.launches = {}
                    recorder.recording = True
                    with profile(activities=[ProfilerActivity.CUDA]) as prof:
                        for x in calls:
                            model(*x)
                        clock.sync()
                    recorder.recording = False
                own_names = {name for name, f in recorder.launches if f == cand_file}
                share, own_ms, total_ms, top = _own_kernel_share(prof, own_names)
                method = "profiler"
            except Exception as e:  # noqa: BLE001 - reported; the engine decides
                recorder.recording = False
                profile_error = (profile_error + "; " if profile_error else "") + f"{type(e).__name__}: {e}"[:300]
    worker.send({"type": "profile", "kernel_share": share, "own_kernel_ms": own_ms, "kernel_ms": total_ms,
                 "top_kernels": top, "profile_error": profile_error, "profile_method": method})


def _set_up(worker, task, taskmod, cls, device, dtype, spec: dict, variant: str, recheck_only: bool,
            op_audit=None, monitor=None):
    """(init, model, base, flops, ctor_forbidden, ctor_held, ctor_steps): the timed variant's
    constructor arguments, a fresh model, the base inputs, the reference's FLOPs, and the ops a
    candidate's constructor ran that it may not, the tables it left held and the host steps it ran
    (built as in the trials: hooks.build_audited)."""
    from tritonrl_runner import hooks

    taskmod.apply_variant(task, variant)
    init = taskmod.init_inputs(task, worker.req["init_seed"])
    candidate = worker.role == "candidate"
    ctor_forbidden, ctor_held, ctor_steps = [], [], 0
    if candidate and op_audit is not None:
        model, ctor_forbidden, ctor_held, ctor_steps = hooks.build_audited(
            taskmod, op_audit, task, cls, init, worker.req["init_seed"], device, dtype,
            getattr(worker, "import_watch", None), monitor)
    else:
        model = taskmod.build_model(cls, init, worker.req["init_seed"], device=device, dtype=dtype,
                                    refuse_overrides=candidate)
    base = taskmod.to_device(taskmod.make_inputs(task, int(spec["input_seed"]), device), device)
    # The reference's FLOPs (matmuls, convolutions: what torch's counter knows) feed the roofline
    # that flags implausible speedups; counted on the eager model, outside the lease.
    # Before the count: a training-mode forward would move BatchNorm's statistics. Not
    # model.eval(): no candidate method runs outside a call.
    trusted.set_training(model, False)
    flops = count_flops(model, base) if worker.role == "reference" and not recheck_only else None
    if worker.role == "reference" and spec.get("baseline") == "compile":
        # Inductor compiles in-process: the sandbox refuses fork().
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        model = torch.compile(model).eval()  # the wrapper is a new module, in training mode
    return init, model, base, flops, ctor_forbidden, ctor_held, ctor_steps


def _await_go(worker, clock: TrustedClock, variant: str, cover_us: float) -> tuple[int, dict]:
    """(cover, plan): tells the engine the stage is ready and waits for its go frame (the engine
    then holds the GPU's timing lease); cover is the launch cover's busy-wait of cover_us, in
    device cycles at the nominal clock (the same count in every worker)."""
    from tritonrl_runner.protocol import read_frame

    worker.send({"type": "stage", "stage": "timing_ready", "variant": variant})
    go, _ = read_frame(worker.in_fd)
    if go.get("type") != "go":
        raise RuntimeError("timing: expected a go frame")
    plan = go["plan"]
    cover = int(min(max(cover_us, 0.0), _MAX_COVER_US) * _NOMINAL_CYCLES_PER_US) if clock.cuda else 0
    return cover, plan


def _call_plan(plan: dict, warmup: int, recheck_only: bool) -> tuple[list[int], tuple]:
    """(warm_seeds, call_plan) from a go frame's plan; call_plan is (per_call, n_calls, recheck,
    sample_seeds, schedule), schedule the (index, seed) of every call, warm-up calls first
    (negative indices)."""
    warm_seeds = [int(s) for s in plan["warmup_seeds"]] or [0]
    # Each timed call's seed comes just before that call, and whether a call is re-checked (and
    # which positions) only after it returned: while a call runs, nothing in this process says
    # whether its output will be looked at. The reference goes the same way (its cycles are the
    # engine's baseline for a candidate's); re-checking for cached timings, it gets the whole plan.
    per_call = not recheck_only
    if per_call:
        n_calls = int(plan["calls"])
        trials: list[int] = []
        recheck: set[int] = set()
        sample_seeds: dict[int, int] = {}
    else:
        trials = [int(s) for s in plan["seeds"]]
        n_calls = len(trials)
        recheck = set(int(i) for i in plan.get("recheck", []))
        sample_seeds = {i: int(s) for i, s in enumerate(plan["sample_seeds"])}
    # Warm-up calls go through the very same steps as the timed ones (so
    # every lazily initialised path -- compilation, autotuning for the
    # timed shape, events, the L2 reset, the snapshot -- has run before the
    # first timed call) and are discarded.
    schedule = [(-1 - w, warm_seeds[w % len(warm_seeds)]) for w in range(warmup)]
    if recheck_only:
        schedule = schedule[:1] + [(i, trials[i]) for i in sorted(recheck) if 0 <= i < n_calls]
    else:
        schedule += [(i, trials[i] if not per_call else None) for i in range(n_calls)]
    return warm_seeds, (per_call, n_calls, recheck, sample_seeds, schedule)


def _timed_calls(worker, clock: TrustedClock, audited: _AuditedCalls, base: list, flush, stream_before, cover: int,
                 sample_count: int, recheck_only: bool, call_plan: tuple, scatter_seed: int) -> tuple:
    """Runs the schedule of `call_plan` (_call_plan), asking the engine for each timed call's seed.
    Returns the measurements (event_ms, wall_ms, tail_ms, covered, warm_ms, l2_reset,
    threads_before, threads_after, stream_changed, output_bytes), the re-checked calls' snapshots,
    and the last call's inputs and CUDA events (pre, start, end; None on the CPU), for the caller
    to hold (see run_stage)."""
    from tritonrl_runner.protocol import read_frame

    per_call, n_calls, recheck, sample_seeds, schedule = call_plan

    def ask_engine(i: int, last) -> int | None:
        """Seed of call i (None after the last); samples `last`, the previous call's (index,
        inputs, output), into `snapshots` when the engine says call i-1 is re-checked."""
        worker.send({"type": "call", "index": i})
        msg, _ = read_frame(worker.in_fd, spin=True)
        if msg.get("type") != "call" or msg.get("index") != i:
            raise RuntimeError(f"timing: expected the engine's answer for call {i}")
        if msg.get("recheck_prev") and last is not None:
            snapshots[last[0]] = _snapshot(last[2], int(msg["sample_seed"]), sample_count)
        seed = msg.get("seed")
        return None if seed is None else int(seed)

    with torch.no_grad():
        event_ms, wall_ms, tail_ms, covered = [], [], [], []
        snapshots: dict[int, list] = {}
        l2_reset = True
        output_bytes = 0
        prev = None
        stream_changed = False
        threads_before = -1
        t_warm = clock.perf_ns()
        warm_ms = 0.0
        for i, seed in schedule:
            if i == 0:
                warm_ms = (clock.perf_ns() - t_warm) / 1e6
                threads_before = _os_threads()  # lazily started runtime threads exist by now
            if per_call and i >= 0:
                seed = ask_engine(i, prev)
                if seed is None:
                    raise RuntimeError(f"timing: no seed for call {i}")
            x = fresh_inputs(base, seed, scatter_seed)
            held, prev = [prev], None  # the previous call's objects: dropped inside this call's audit
            if clock.cuda:
                l2_reset = clock.reset_persisting_l2() and l2_reset
            audited.begin(x)
            clock.sync()
            # The engine clocks the span between these two frames (src/eval/parent_clock.h): the
            # timed call and nothing of the audit's own work before and after it, which the
            # trusted reference does not do; sent outside the worker's own clock.
            if per_call and i >= 0:
                worker.send({"type": "span", "index": i, "edge": "begin"})
            if clock.cuda:
                # The cover (a device busy-wait of cover_us) and the flush run on the device
                # while the host queues the call, its launch code and audit included, so the
                # events time the call's device work (as nvbench's blocking kernel does; Triton's
                # do_bench hides launch latency behind the flush alone); their span (pre ->
                # start) is measured and taken off the synchronised wall clock.
                pre = clock.event_cls(enable_timing=True)
                start, end = clock.event_cls(enable_timing=True), clock.event_cls(enable_timing=True)
                t0 = clock.perf_ns()
                clock.record(pre, stream_before)
                if cover:
                    clock.gpu_sleep(cover)
                flush.fill_(i)
                clock.record(start, stream_before)
                out = audited.forward(x, held)
                # The device had not reached the start event once the host had queued the call:
                # the events bracket device work only (the cover held).
                call_covered = not clock.ev_query(start)
                clock.record(end, stream_before)
                clock.ev_sync(end)
                t_ev = clock.perf_ns()
                clock.sync()
                t1 = clock.perf_ns()
                if per_call and i >= 0:
                    worker.send({"type": "span", "index": i, "edge": "end"})
                ev = float(clock.elapsed(start, end))
                flush_ms = float(clock.elapsed(pre, start))
                stream_changed = stream_changed or clock.current_stream() != stream_before
                audited.end(out, i)
            else:  # CPU fallback (tests): the synchronised clock is the only clock
                flush.fill_(i)
                t0 = clock.perf_ns()
                out = audited.forward(x, held)
                t1 = t_ev = clock.perf_ns()
                if per_call and i >= 0:
                    worker.send({"type": "span", "index": i, "edge": "end"})
                ev = (t1 - t0) / 1e6
                flush_ms = 0.0
                call_covered = False  # no device: the host's clock is the call
                audited.end(out, i)
            # Snapshots are taken after the call and the device are done, outside every timed
            # span; warm-up calls take one too, so its path is warm before timing.
            if i == -1:
                _snapshot(out, seed, sample_count)
            if i >= 0:
                if not recheck_only:
                    event_ms.append(ev)
                    wall_ms.append(max(0.0, (t1 - t0) / 1e6 - flush_ms))
                    tail_ms.append((t1 - t_ev) / 1e6)
                    covered.append(bool(call_covered))
                if not per_call and i in recheck:
                    snapshots[i] = _snapshot(out, sample_seeds[i], sample_count)
            if i >= 0 and output_bytes == 0:
                output_bytes = sum(o.numel() * o.element_size() for o in _flatten(out) if type(o) is torch.Tensor)
            # Keep this call's storage (and output) alive until the next call's model returns.
            prev, out = (i, x, out), None
        if per_call and n_calls > 0:
            ask_engine(n_calls, prev)  # the decision on the last call
        del prev
        threads_after = _os_threads()
    if not clock.cuda:  # on CUDA they are bound: there is at least one warm-up call
        pre = start = end = None
    return (event_ms, wall_ms, tail_ms, covered, warm_ms, l2_reset, threads_before, threads_after, stream_changed, output_bytes,
            snapshots, x, pre, start, end)


def _rechecks(snapshots: dict) -> tuple[list, bytes]:
    """The timing frame's description of the re-checked calls' sampled outputs, and their bytes."""
    described, chunks, offset = [], [], 0
    for i in sorted(snapshots):
        for j, s in enumerate(snapshots[i]):
            if s is None:
                described.append({"trial": i, "output": j, "type_ok": False})
                continue
            vals, shape = s
            data = vals.contiguous().cpu().view(torch.uint8).numpy().tobytes()
            described.append({"trial": i, "output": j, "type_ok": True, "dtype": str(vals.dtype).removeprefix("torch."),
                              "numel": int(vals.numel()), "shape": shape, "offset": offset, "nbytes": len(data)})
            chunks.append(data)
            offset += len(data)
    return described, b"".join(chunks)


def _try_event_share(clock: TrustedClock, model, calls: list, recorder, cand_file, host_ms: float):
    """(_event_share's result or None, the error it raised or "")."""
    got = None
    profile_error = ""
    try:
        with torch.no_grad():
            got = _event_share(clock, model, calls, recorder, cand_file, host_ms)
    except Exception as e:  # noqa: BLE001 - the profiler decides instead
        profile_error = f"events: {type(e).__name__}: {e}"[:300]
    finally:
        recorder.span_mark, recorder.spans = None, []
    return got, profile_error
