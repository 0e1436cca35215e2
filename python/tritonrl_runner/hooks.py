"""Runtime proof of work: who launched which Triton kernel, which ATen ops ran.

Installed by the trusted worker BEFORE the candidate module is imported:

* ``LaunchRecorder`` wraps ``JITFunction.run`` (compiled path) and
  ``InterpretedFunction.run`` (TRITON_INTERPRET=1) at class level, so every
  launch -- direct, through ``kernel[grid]``, ``@triton.autotune`` or
  ``@triton.heuristics`` -- passes through it; on the compiled path Triton's
  ``knobs.runtime.launch_enter_hook`` (called by the C launcher) counts launches
  a second, independent way. Each launch records the kernel name and the file
  its Python function was defined in.
* ``OpAudit`` is a ``TorchDispatchMode`` that records every ATen op reaching
  the dispatcher during ``forward`` (below autograd, so aliases and wrappers
  cannot hide an op) and flags those outside the shared allowlist.

Both live in the candidate's process, so a determined candidate can find and
tamper with them; ``intact()`` detects the cheap ways (reassigned methods, a
popped dispatch mode), and the engine never relies on these records alone.
"""

from __future__ import annotations

import json
import threading
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode


class LaunchRecorder:
    def __init__(self) -> None:
        import triton.knobs as knobs
        from triton.runtime import autotuner, interpreter, jit

        self._jit_cls = jit.JITFunction
        self._interp_cls = interpreter.InterpretedFunction
        self._autotuner_cls = autotuner.Autotuner
        self._knobs = knobs
        self.launches: list[tuple[str, str]] = []  # (kernel name, defining file)
        self.c_launches = 0  # counted by the C launcher hook (compiled path only)
        self.suppress = 0  # >0 while Triton's own machinery runs (its ATen ops are not the candidate's)
        self.recording = False
        self._thread = threading.get_ident()
        rec = self

        orig_jit_run = self._jit_cls.run
        orig_interp_run = self._interp_cls.run
        orig_bench = self._autotuner_cls._bench

        def jit_run(self, *args, grid, warmup, **kwargs):
            kernel = orig_jit_run(self, *args, grid=grid, warmup=warmup, **kwargs)
            if not warmup:
                rec._record(self.fn)
            return kernel

        def interp_run(self, *args, grid, warmup, **kwargs):
            # The interpreter copies arguments with ATen ops; those are Triton's.
            rec.suppress += 1
            try:
                result = orig_interp_run(self, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                rec.suppress -= 1
            if not warmup:
                rec._record(self.fn)
            return result

        def bench(self, *args, **kwargs):
            if knobs.runtime.interpret and self._do_bench is None:
                # No GPU driver to benchmark with: time each config once on the host.
                self._do_bench = _host_bench
                self.__dict__.pop("do_bench", None)
            # do_bench allocates and zeroes an L2-flush buffer with ATen ops.
            rec.suppress += 1
            try:
                return orig_bench(self, *args, **kwargs)
            finally:
                rec.suppress -= 1

        def on_launch(metadata) -> None:
            if rec.recording:
                rec.c_launches += 1

        self._jit_run, self._interp_run, self._bench, self._on_launch = jit_run, interp_run, bench, on_launch
        self._jit_cls.run = jit_run
        self._interp_cls.run = interp_run
        self._autotuner_cls._bench = bench
        knobs.runtime.launch_enter_hook.add(on_launch)

    def _record(self, fn) -> None:
        if self.recording:
            code = getattr(fn, "__code__", None)
            self.launches.append((getattr(fn, "__name__", "?"), code.co_filename if code else "?"))

    def intact(self) -> bool:
        return (self._jit_cls.run is self._jit_run and self._interp_cls.run is self._interp_run
                and self._autotuner_cls._bench is self._bench
                and self._on_launch in self._knobs.runtime.launch_enter_hook.calls)


def _host_bench(kernel_call, quantiles=None):
    """The autotuner's benchmark under TRITON_INTERPRET=1: one timed call per
    config (every config still runs; the GPU run measures for real)."""
    t0 = time.perf_counter()
    kernel_call()
    ms = (time.perf_counter() - t0) * 1000.0
    return [ms] * len(quantiles) if quantiles else ms


def load_allowlist(path: str) -> frozenset[str]:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return frozenset(data.get("aten_ops", []))


class OpAudit(TorchDispatchMode):
    def __init__(self, allowed: frozenset[str], recorder: LaunchRecorder) -> None:
        super().__init__()
        self.allowed = allowed
        self.recorder = recorder
        self.seen: set[str] = set()
        self.forbidden: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not self.recorder.suppress:
            name = func._overloadpacket._qualified_op_name
            self.seen.add(name)
            if name not in self.allowed:
                self.forbidden.add(name)
        return func(*args, **(kwargs or {}))


def global_state() -> tuple:
    """Process-wide torch settings a candidate must not change (they would alter
    numerics or the baseline for anything that runs after it)."""
    return (
        torch.get_default_dtype(),
        torch.are_deterministic_algorithms_enabled(),
        torch.get_float32_matmul_precision(),
        torch.backends.cuda.matmul.allow_tf32,
        torch.backends.cudnn.allow_tf32,
        torch.backends.cudnn.enabled,
        torch.backends.cudnn.benchmark,
        torch.backends.cudnn.deterministic,
        torch.is_grad_enabled(),
        torch.get_num_threads(),
    )


def poison_cuda(device: torch.device) -> None:
    """Leave NaN in the caching allocator's free blocks so an output the
    candidate allocates but never writes reads as NaN, not as stale data."""
    free, _ = torch.cuda.mem_get_info(device)
    big = min(free // 4, 2 << 30) // 4
    if big > 0:
        t = torch.empty(big, dtype=torch.float32, device=device)
        t.fill_(float("nan"))
        del t
    small = [torch.full((1 << 16,), float("nan"), device=device) for _ in range(32)]  # small pool (<1 MiB)
    del small
    torch.cuda.synchronize(device)
