"""One evaluation worker: run a task's reference model or a candidate ModelNew.

Started by the C++ engine (src/eval) as ``python -I -B worker.py IN_FD OUT_FD
[--prestart cpu|cuda]`` inside its sandbox. It reads one request frame from IN_FD and writes result
frames to OUT_FD (see protocol.py). The engine sends the same request, minus
the candidate, to a separate reference worker, and compares the two streams of
output bytes itself; this process never sees reference outputs and decides
nothing: every frame it sends after the candidate is imported is treated by the
engine as untrusted evidence.

Request (JSON): role ("reference" | "candidate"), task_path, candidate_path,
device ("cpu" | "cuda"), variants (list of names, or null to let the worker
pick: "small" on CPU when the task has it, else the first; all on GPU),
init_seed, trials [{seed, train, grad}], allowlist_path, perturb (glibc
malloc perturb byte for the candidate, 0 = off), tolerance_policy ("ours" |
"kernelbench" | "kernelbench-v0", taskmod.tolerance).

Frames sent: hello, variants, stage (import / build), trial (a header, then
each tensor output's bytes as slice frames of at most SLICE_BYTES), error, done;
and, from a candidate at any time, progress (on the GPU a Triton compile's start and end; a
call's launch count at most once a second while it launches), for the engine's idle deadline.

Pre-started (``--prestart DEVICE``, src/eval/worker_pool.h): the worker does the start-up that
depends on no request before it reads one (imports, the CUDA context), then blocks on IN_FD until
the engine hands it a sample; everything that depends on the role, the task or the candidate still
happens after the request, as without the flag. One request per process either way.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tritonrl_runner import guard  # noqa: E402
from tritonrl_runner.protocol import read_frame, write_frame  # noqa: E402

_PR_SET_DUMPABLE = 4
_M_PERTURB = -6


def _proc_status() -> dict:
    out = {}
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("Seccomp", "NoNewPrivs"):
                    out[key] = value.strip()
    except OSError:
        pass
    return out


def _ms(t0: float) -> float:
    return round((time.monotonic() - t0) * 1000.0, 3)


# Outputs travel in slices of at most this many bytes (one "slice" frame each), and inputs are
# hashed slice by slice: neither this process nor the engine ever holds a second whole copy of a
# tensor (KernelBench outputs reach several GB). A multiple of every element size.
SLICE_BYTES = 4 << 20


def _flat_bytes(t):
    """The tensor's bytes, row-major, as a flat uint8 tensor on its device."""
    import torch

    return t.detach().contiguous().reshape(-1).view(torch.uint8)


def _byte_slices(t):
    """The tensor's bytes (row-major, little-endian) as buffers of at most SLICE_BYTES, each
    copied to the host on its own."""
    flat = _flat_bytes(t)
    for at in range(0, flat.numel(), SLICE_BYTES):
        part = flat[at:at + SLICE_BYTES]
        if part.device.type != "cpu":
            part = part.cpu()
        yield memoryview(part.numpy())


_DIGEST_EDGE = 1 << 16  # bytes of each tensor's head and tail in the digest
_DIGEST_PICKS = 1 << 16  # bytes at positions fixed by the tensor's size
_pick_cache: dict = {}


def _digest_inputs(inputs) -> str:
    """Fingerprint of a trial's inputs, for the engine's check that both workers built the same
    ones (inputs_differ): sha256 of each tensor's dtype, shape, first and last 64 KiB and 64 KiB
    at positions fixed by its size (every byte when smaller). Hashing every byte on the host cost
    ~0.1 s per 64 MiB on the H200 (bench/results/gpu10_profile_cost.txt), ten times a trial; a
    worker that builds other inputs gains nothing anyway, its outputs are compared with the
    reference's for the real ones."""
    import torch

    h = hashlib.sha256()
    for x in inputs:
        if isinstance(x, torch.Tensor):
            h.update(f"T{x.dtype}{tuple(x.shape)}".encode())
            flat = _flat_bytes(x)
            n = flat.numel()
            if n > 2 * _DIGEST_EDGE + _DIGEST_PICKS:
                key = (n, str(flat.device))
                idx = _pick_cache.get(key)
                if idx is None:
                    g = torch.Generator().manual_seed(n)
                    idx = _pick_cache[key] = torch.randint(0, n, (_DIGEST_PICKS,), generator=g).to(flat.device)
                flat = torch.cat([flat[:_DIGEST_EDGE], flat[-_DIGEST_EDGE:], flat.index_select(0, idx)])
            h.update(memoryview(flat.cpu().numpy()))
        else:
            h.update(f"S{type(x).__name__}{x!r}".encode())
    return h.hexdigest()


def _copy_inputs(inputs) -> list:
    import torch

    return [x.detach().clone() if isinstance(x, torch.Tensor) else None for x in inputs]


def _inputs_unchanged(inputs, copies) -> bool:
    """Byte for byte (NaNs included), on the inputs' device: whether forward left them as they
    were (input_mutated otherwise)."""
    import torch

    for x, c in zip(inputs, copies):
        if c is None:
            continue
        if not isinstance(x, torch.Tensor) or x.shape != c.shape or x.dtype != c.dtype:
            return False
        if not torch.equal(_flat_bytes(x), _flat_bytes(c)):
            return False
    return True


def _storage_range(t):
    s = t.untyped_storage()
    return s.data_ptr(), s.data_ptr() + s.nbytes()


def _aliases(out, inputs) -> bool:
    import torch

    if out.untyped_storage().nbytes() == 0:
        return False
    lo, hi = _storage_range(out)
    for x in inputs:
        if isinstance(x, torch.Tensor) and x.untyped_storage().nbytes() > 0:
            xlo, xhi = _storage_range(x)
            if lo < xhi and xlo < hi:
                return True
    return False


def _refused_by_triton_front_end(exc: BaseException) -> bool:
    """Whether Triton refused a kernel before running it: the innermost frame is in its compiler
    package or in the JIT's dependency scan (jit.py's DependenciesFinder, which on the GPU refuses a
    kernel that references a plain Python function, "Unsupported function referenced", where the
    interpreter raises InterpreterError). The engine counts it as a compile error, as it does
    CompilationError; a candidate raising the same itself only picks another failing outcome."""
    tb, code = exc.__traceback__, None
    while tb is not None:
        code, tb = tb.tb_frame.f_code, tb.tb_next
    if code is None:
        return False
    path = code.co_filename.replace(os.sep, "/")
    if "/triton/compiler/" in path:
        return True
    return path.endswith("/triton/runtime/jit.py") and code.co_qualname.startswith("DependenciesFinder.")


def _dtype_name(dt) -> str:
    return str(dt).removeprefix("torch.")


class Worker:
    def __init__(self, out_fd: int, req: dict) -> None:
        self.out_fd = out_fd
        self.req = req
        self.role = req["role"]
        self.stage = "setup"
        self.poison = guard.poison_byte()
        self.monitor = None
        self.thread_ban = "off"
        self._send_lock = threading.Lock()
        # The reference's large-output rule for the variant in progress (decided on its first
        # trial), else None.
        self._large_output = None
        self.prestart_ms = None  # set by main() for a pre-started worker

    def send(self, header: dict, payload: bytes = b"") -> None:
        with self._send_lock:  # Triton's async compile mode may report from another thread
            write_frame(self.out_fd, header, payload)

    def _report_compiles(self) -> None:
        """Tell the engine when Triton starts and ends a compile: its idle deadline
        (worker_driver.cpp) then waits for a long first-call compile but not for a candidate
        that spins or hangs. Forged or suppressed reports only move the candidate's own deadline
        within its stage limit."""
        import triton.knobs as knobs

        send = self.send

        def compile_start(**_):
            send({"type": "progress", "what": "compile_start"})
            return None  # falsy: Triton goes on and compiles

        def compile_end(**_):
            send({"type": "progress", "what": "compile_end"})

        knobs.runtime.jit_cache_hook = compile_start
        knobs.runtime.jit_post_compile_hook = compile_end

    def error(self, exc: BaseException) -> None:
        tb = traceback.format_exception(exc)
        exc_type = type(exc).__name__
        # A refusal that a library turned into another error (torch.Size() reports a refused
        # __index__ as a TypeError) is still the refusal: the monitor kept its record.
        monitor = getattr(self, "monitor", None)
        refused = [h for h in (monitor.host if monitor is not None else []) if "(per-element loop)" in h]
        if refused and exc_type != "HostComputeRefused":
            exc_type = "HostComputeRefused"
            tb.append(f"refused by the evaluator: {refused[-1]}\n")
        frame = {"type": "error", "stage": self.stage, "exc_type": exc_type, "message": "".join(tb)[-2000:]}
        hooks = sys.modules.get("tritonrl_runner.hooks")
        if _refused_by_triton_front_end(exc) or (
                hooks is not None and type(exc) is hooks.KernelArgumentRefused):
            frame["triton_refused"] = True
        self.send(frame)

    def run(self) -> None:
        req = self.req
        t0 = time.monotonic()
        if self.role == "candidate":
            # Not ptrace-able, no core dumps; poison malloc'd memory (see docs/eval.md).
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
            if req.get("perturb"):
                # glibc fills fresh blocks with perturb ^ 0xFF; the byte is drawn per sample.
                libc.mallopt(_M_PERTURB, self.poison ^ 0xFF)
        import torch
        import triton  # noqa: F401

        from tritonrl_runner import hooks, taskmod, trusted  # noqa: F401 (protected below)

        hello = {"type": "hello", "role": self.role, "pid": os.getpid(), "status": _proc_status(),
                 "torch": torch.__version__, "triton": triton.__version__, "ms": _ms(t0)}
        if self.prestart_ms:
            hello["prestart_ms"] = self.prestart_ms  # done before the request (diagnostic)
        self.send(hello)
        device = torch.device(req.get("device", "cpu"))
        t1 = time.monotonic()
        if device.type == "cuda":
            torch.cuda.set_device(0)
            device = torch.device("cuda", 0)
            torch.empty(1, device=device)  # the context, created here rather than in a stage
        device_init_ms = _ms(t1)

        self.stage = "load_task"
        task = taskmod.load_module(req["task_path"])
        missing = taskmod.check_task(task)
        if missing:
            raise RuntimeError(f"task lacks {', '.join(missing)}")
        # The engine names the candidate's variants (the reference's); the reference runs the
        # preferred ones the task has, else the device's default.
        prefer = req.get("prefer_variants") or []
        names = req.get("variants") or [v for v in taskmod.variants(task) if v in prefer]
        names = names or taskmod.eval_variants(task, device)
        self.policy = req.get("tolerance_policy") or "ours"
        self.atol, self.rtol = atol, rtol = taskmod.tolerance(task, self.policy)
        dtype = taskmod.task_dtype(task)
        self.send({"type": "variants", "variants": names, "atol": atol, "rtol": rtol,
                   "rel_l2": taskmod.uses_rel_l2(self.policy), "dtype": _dtype_name(dtype),
                   "device_init_ms": device_init_ms})

        # The timing stage's clocks, captured before the candidate can patch them.
        clock = None
        if req.get("timing"):
            from tritonrl_runner import timing

            clock = timing.TrustedClock(device)
        recorder = audit = import_watch = None
        cls = task.Model
        cand_file = None
        if self.role == "candidate":
            recorder = hooks.LaunchRecorder()
            recorder.tol = (float(atol), float(rtol))  # the copy check's tolerance (hooks.py)
            # Launch progress (at most one frame a second while a call launches): the engine's
            # idle deadline waits for a call that launches once per row, and a timing stage that
            # launches on past its budget is slow, not hung (worker_driver.cpp). Forged or
            # suppressed, it moves only the candidate's own deadlines within their stage limits.
            recorder.on_progress = lambda n, send=self.send: send(
                {"type": "progress", "what": "launches", "launches": int(n)})
            if device.type == "cuda":
                self._report_compiles()
            audit = hooks.OpAudit(hooks.load_allowlist(req["allowlist_path"]), recorder,
                                  os.path.realpath(req["candidate_path"]))
            # Guards the candidate cannot lift: no thread after this point (CPU), and every call
            # its code makes is classified before the callee runs (guard.py).
            self.monitor = guard.CallMonitor(guard.trusted_roots(req["task_path"]), req["allowlist_path"])
            if device.type == "cpu":
                self.thread_ban = guard.ban_threads() or "on"
            self.monitor.candidate_file = os.path.realpath(req["candidate_path"])
            self.monitor.in_kernel_body = lambda: recorder.in_kernel_body
            self.monitor.protect([sys.modules[n] for n in (__name__, "tritonrl_runner.guard", "tritonrl_runner.hooks",
                                                            "tritonrl_runner.protocol", "tritonrl_runner.taskmod",
                                                            "tritonrl_runner.timing", "tritonrl_runner.trusted")
                                  if n in sys.modules])
            self.monitor.armed = True
            self.stage = "import"
            t1 = time.monotonic()
            cand_file = os.path.realpath(req["candidate_path"])
            # Tensors the import makes are watched as the constructor's are (held-tensor rule).
            import_watch = self.import_watch = audit.held_watch = hooks.HeldWatch()
            self.monitor.start_build()
            try:
                with audit:
                    cand = taskmod.load_module(cand_file)
            finally:
                audit.held_watch = None
                import_steps = self.monitor.stop_build()
            cls = getattr(cand, "ModelNew", None)
            if not isinstance(cls, type) or not issubclass(cls, torch.nn.Module):
                raise ImportError("the candidate defines no ModelNew(nn.Module) class")
            foreign = [c.__qualname__ for c in cls.__mro__
                       if c.__module__ == task.__name__]
            # The import meets the constructor's op rule (hooks.CONSTRUCTOR_OPS), read before
            # build_audited resets the audit (hack adv_linear_tanh_import_dataclass_post_init:
            # torch.tanh of a grid in a dataclass made at module level).
            self.send({"type": "stage", "stage": "import", "ms": _ms(t1),
                       "inherits_reference": foreign, "host_steps": [[import_steps, 0]],
                       "forbidden_ops": hooks.outside_constructor_ops(audit.forbidden)})

        for variant in names:
            self.stage = "build"
            taskmod.apply_variant(task, variant)
            t1 = time.monotonic()
            init = taskmod.init_inputs(task, req["init_seed"])
            stage = {"type": "stage", "stage": "build", "variant": variant}
            if recorder is None:
                model = taskmod.build_model(cls, init, req["init_seed"], device=device, dtype=dtype)
            else:
                # The constructor under the ATen audit too: it may allocate, initialise randomly
                # and move data, not compute (hooks.CONSTRUCTOR_OPS).
                model, stage["forbidden_ops"], stage["held_tables"], steps = hooks.build_audited(
                    taskmod, audit, task, cls, init, req["init_seed"], device, dtype, import_watch, self.monitor)
                stage["host_steps"] = [[steps, 0]]
            stage["ms"] = _ms(t1)
            self.send(stage)
            # The engine may run fewer trials on a variant (the large one on the GPU); it names them.
            given = (req.get("variant_trials") or {}).get(variant)
            indices = list(given if given is not None else range(len(req["trials"])))
            # The reference alone: a variant whose first trial's outputs reach large_output.bytes
            # runs the large variant's trials only, and says so in that trial's frame.
            self._large_output = req.get("large_output") if recorder is None and given is None else None
            at = 0
            while at < len(indices):
                index = indices[at]
                trial = req["trials"][index]
                self.stage = "trial"
                plan = self._trial(task, taskmod, hooks, model, variant, index, trial, device, recorder, audit,
                                   cand_file)
                if plan is not None:
                    indices = plan
                at += 1
        if clock is not None:
            self.stage = "timing"
            timing.run_stage(self, task, taskmod, cls, device, dtype, clock, names, recorder, cand_file,
                             op_audit=audit, monitor=self.monitor)
        self.send({"type": "done", "ms": _ms(t0)})

    def _reuse_storage(self, index, inputs):
        """On every other call, hand the candidate the previous call's tensor
        objects (same id, same data_ptr) refilled with the new values: a cache
        keyed on object identity or address then returns a stale output, which
        fresh allocations alone would catch only when the allocator happens to
        reuse an address."""
        import torch

        prev = getattr(self, "_prev_inputs", None)
        reuse = (index % 2 == 1 and prev is not None and len(prev) == len(inputs)
                 and all(isinstance(a, torch.Tensor) == isinstance(b, torch.Tensor) for a, b in zip(prev, inputs))
                 and all(a.shape == b.shape and a.dtype == b.dtype and a.device == b.device and a.is_contiguous()
                         for a, b in zip(prev, inputs) if isinstance(a, torch.Tensor)))
        if reuse:
            with torch.no_grad():
                for a, b in zip(prev, inputs):
                    if isinstance(a, torch.Tensor):
                        a.copy_(b)
            inputs = [a if isinstance(a, torch.Tensor) else b for a, b in zip(prev, inputs)]
        self._prev_inputs = inputs
        return inputs

    def _trial(self, task, taskmod, hooks, model, variant, index, trial, device, recorder, audit, cand_file):
        """One trial: its inputs, the call (_forward), the description of its outputs, the checks
        after the call, then the trial frame and the outputs' bytes. Returns the trial indices
        that replace the variant's when the reference's large-output rule decides them, else None."""
        import torch

        from tritonrl_runner import trusted

        if "seed" not in trial:
            trial = self._trial_seed(variant, index, trial)
        # Where a trial's time goes (diagnostics only: the engine reports them, never judges by
        # them, and a candidate's process could forge them).
        phase = {}
        tp = time.monotonic()
        inputs = taskmod.to_device(taskmod.make_inputs(task, trial["seed"], device), device)
        if recorder is not None:
            inputs = self._reuse_storage(index, inputs)
        phase["inputs"] = _ms(tp)
        tp = time.monotonic()
        hash_before = _digest_inputs(inputs)
        before = _copy_inputs(inputs)
        phase["hash"] = _ms(tp)
        trusted.set_training(model, bool(trial["train"]))  # not model.train(): no candidate method
        header = {"type": "trial", "variant": variant, "index": index, "seed": trial["seed"],
                  "input_sha256": hash_before}
        out = self._forward(header, hooks, model, inputs, trial, device, recorder, audit, cand_file)
        phase["forward"] = header["ms"]
        for part, ms in header.pop("audit_ms", {}).items():
            phase["audit_" + part] = ms
        outs, tensors = self._describe_outputs(header, taskmod, out, inputs, recorder)
        plan = None
        if self._large_output:
            out_bytes = sum(d.get("nbytes", 0) for d in header["outputs"])
            if out_bytes >= self._large_output["bytes"]:
                plan = [int(i) for i in self._large_output["trials"]]
                header["variant_trials"] = plan
            self._large_output = None  # decided on the variant's first trial
        header["input_bytes"] = sum(x.numel() * x.element_size() for x in inputs
                                    if isinstance(x, torch.Tensor))
        if recorder is None and device.type == "cuda":
            # The trusted reference's peak so far (what torch's allocator reserved): the engine sizes
            # the admission of the task's candidates by it.
            header["peak_device_bytes"] = int(torch.cuda.max_memory_reserved(device))
        tp = time.monotonic()
        header["input_sha256_after"] = (hash_before if _inputs_unchanged(inputs, before)
                                        else "changed:" + _digest_inputs(inputs))
        del before
        phase["hash"] += _ms(tp)
        if recorder is None and outs:
            # The trusted reference: which cheap fakes its own outputs cannot tell from the truth
            # (the engine flags the task's samples weak_task); inputs it changed are no fake.
            tp = time.monotonic()
            kept = inputs if header["input_sha256_after"] == hash_before else []
            header["null_models_passed"] = taskmod.null_models_passing(outs, kept, self.atol, self.rtol,
                                                                       self.policy)
            phase["null_models"] = _ms(tp)
        # The previous trial's output sending (the engine's compare or spill included).
        if getattr(self, "_send_ms", None) is not None:
            phase["outputs_prev"] = self._send_ms
        header["phase_ms"] = phase
        self.send(header)
        self._send_outputs(tensors)
        return plan

    def _trial_seed(self, variant, index, trial):
        """The trial with its seed, which a candidate gets from the engine just before the trial."""
        from tritonrl_runner.protocol import read_frame
        got, _ = read_frame(self.in_fd)
        if got.get("type") != "seed" or got.get("variant") != variant or got.get("index") != index:
            raise RuntimeError(f"expected the seed of {variant} trial {index}, got {str(got)[:200]}")
        return dict(trial, seed=int(got["seed"]))

    def _forward(self, header, hooks, model, inputs, trial, device, recorder, audit, cand_file):
        """The trial's call, timed into header["ms"]; a candidate's runs under the launch recorder,
        the ATen audit and the call monitor, whose findings go into the header."""
        import torch

        from tritonrl_runner import trusted
        from torch.utils._python_dispatch import _get_current_dispatch_mode

        t1 = time.monotonic()
        if recorder is None:
            with torch.set_grad_enabled(bool(trial["grad"])):
                out = model(*inputs)
        else:
            if device.type == "cuda":
                hooks.poison_cuda(device, self.poison)
            recorder.reset(inputs)
            audit.reset_call()
            monitor = self.monitor
            module_hooks = hooks.module_hooks(model)
            with torch.set_grad_enabled(bool(trial["grad"])):
                state = hooks.global_state()
                recorder.audit_ns = monitor.audit_ns = 0
                recorder.recording = True
                monitor.start_call()
                with audit:
                    out = model(*inputs)
                    mode_intact = _get_current_dispatch_mode() is audit
                monitor.stop_call()
                recorder.recording = False
                state_after = hooks.global_state()
            try:
                header["output_writers"] = recorder.output_writers(trusted.exact_outputs(out))
            except TypeError:
                header["output_writers"] = []
            header["module_hooks"] = sorted(set(module_hooks + hooks.module_hooks(model)))
            header["host_calls"] = list(monitor.host) + audit.host_reads
            header["internal_calls"] = list(monitor.internal)
            header["host_steps"] = [[monitor.steps, recorder.launch_total()]]
            header["thread_ban"] = self.thread_ban
            mode_intact = mode_intact and monitor.intact()
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            # [kernel name, defined in the candidate's file, launches in this call]
            header["launches"] = [[name, f == cand_file, n] for (name, f), n in recorder.launches.items()]
            header["c_launches"] = recorder.c_launches
            header["aten_ops"] = sorted(audit.seen)
            header["forbidden_ops"] = sorted(audit.forbidden)
            header["hooks_intact"] = bool(mode_intact and recorder.intact())
            header["global_state_changed"] = state != state_after
            header["compiled_path"] = device.type == "cuda"
            # The audit's own time in the call, by its clocks (diagnostic, as phase_ms): the call
            # monitor's callbacks, and the recorder's dispatch callbacks and launch steps.
            header["audit_ms"] = {"monitor": monitor.audit_ns / 1e6, "recorder": recorder.audit_ns / 1e6}
        header["ms"] = _ms(t1)
        return out

    def _describe_outputs(self, header, taskmod, out, inputs, recorder):
        """(outs, tensors): the call's outputs, and the (position, tensor) of each tensor among
        them; each output's description goes into header["outputs"]."""
        import torch

        from tritonrl_runner import trusted

        try:
            # A candidate's output is read only if it is exactly a tensor or a tuple/list of them:
            # a subclass's __iter__ or __getitem__ would run here, after the audit.
            outs = trusted.exact_outputs(out) if recorder is not None else taskmod.flatten_outputs(out)
        except TypeError as e:
            header["outputs_error"] = str(e)
            outs = []
        described, tensors = [], []
        for o in outs:
            d = {"type_ok": type(o) is torch.Tensor}
            if d["type_ok"]:
                d.update(dtype=_dtype_name(o.dtype), shape=list(o.shape), device=str(o.device),
                         alias=_aliases(o, inputs), nbytes=o.numel() * o.element_size(),
                         contiguous=o.is_contiguous())
                tensors.append((len(described), o))
            else:
                d["type"] = f"{type(o).__module__}.{type(o).__qualname__}"
            described.append(d)
        header["outputs"] = described
        return outs, tensors

    def _send_outputs(self, tensors):
        """Each tensor output's bytes, in order, as "slice" frames (the engine compares or spills
        them as they arrive); the time it took is the next trial's outputs_prev."""
        tp = time.monotonic()
        for i, o in tensors:
            offset = 0
            for part in _byte_slices(o):
                self.send({"type": "slice", "output": i, "offset": offset}, part)
                offset += part.nbytes
        self._send_ms = _ms(tp)


def _prestart(device: str) -> float:
    """The start-up no request changes, done while the worker waits for one (a pre-started worker,
    src/eval/worker_pool.h): torch, Triton and the runner's own modules imported, and on the GPU
    the CUDA context and Triton's driver (its cuda_utils, from this worker's private cache) made.
    No task, candidate, seed or role is known yet, so nothing here can depend on one; the role's
    own protections (not dumpable, malloc perturbation) come after the request, before any task
    or candidate code runs. Returns the milliseconds it took, or None when a step failed: the worker
    then still reads its request, and run() repeats the step and reports its error in a frame, as
    a worker started with its request would."""
    t0 = time.monotonic()
    try:
        import torch
        import triton
        import triton.language  # noqa: F401

        from tritonrl_runner import hooks, taskmod, timing, trusted  # noqa: F401
        if device == "cuda":
            torch.cuda.set_device(0)
            torch.empty(1, device=torch.device("cuda", 0))  # the context (~500 MB of device memory)
            # What a first launch would do: load the driver's utilities (a dlopen, no compile).
            from triton.runtime import driver

            driver.active.get_current_device()
    except Exception:  # noqa: BLE001 (see the docstring)
        return None
    return _ms(t0)


def _parse_args(argv: list[str]):
    """IN_FD, OUT_FD and the pre-start device (None when not pre-started)."""
    in_fd, out_fd = int(argv[1]), int(argv[2])
    rest = argv[3:]
    if not rest:
        return in_fd, out_fd, None
    if len(rest) != 2 or rest[0] != "--prestart" or rest[1] not in ("cpu", "cuda"):
        raise SystemExit(f"usage: worker.py IN_FD OUT_FD [--prestart cpu|cuda], not {rest}")
    return in_fd, out_fd, rest[1]


def main(argv: list[str]) -> int:
    in_fd, out_fd, prestart = _parse_args(argv)
    prestart_ms = _prestart(prestart) if prestart else None
    req, _ = read_frame(in_fd)
    worker = Worker(out_fd, req)
    worker.prestart_ms = prestart_ms
    worker.in_fd = in_fd  # seeds for a candidate's trials, and the timing stage's "go"
    if not req.get("timing") and all("seed" in t for t in req.get("trials", [])):
        os.close(in_fd)
    try:
        if prestart and req.get("device", "cpu") != prestart:
            # The engine keys its pre-started workers by device: this is its bug, not the sample's.
            raise RuntimeError(f"pre-started for {prestart}, asked to run on {req.get('device')}")
        worker.run()
    except BaseException as e:  # reported to the engine, which classifies it
        try:
            worker.error(e)
        except OSError:
            pass
        return 1
    return 0


if __name__ == "__main__":
    rc = main(sys.argv)
    # Every result is sent: leave without running anything the candidate may
    # have registered (atexit, finalizers, non-daemon threads).
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(rc)
