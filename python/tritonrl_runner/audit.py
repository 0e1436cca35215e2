"""Null-model audit of task files (driven by `tritonrl tasks audit`).

For every task and variant it computes the reference output and checks that the task can
tell an honest kernel from a cheap fake:

  reference checks   deterministic   (two runs on the same inputs agree within tolerance;
                                      "bitwise" says whether they were identical)
                     finite          (no NaN/Inf in any output)
                     not_constant    (every output with more than one element has max > min)
                     input_sensitive (different inputs give an output that fails the check)
  null models        zeros           zeros of the output's shape
                     mean            every element equal to the reference mean (outputs with
                                     more than one element; a constant scalar answer is what
                                     input_sensitive catches)
                     passthrough:i   input i returned unchanged (for each input whose shape
                                     and dtype equal the single output's)
                     zeroed_inputs   the reference model on inputs with all floating values zero
                     drop:k:OP       (level >= 2) the reference with its k-th compute ATen op
                                     removed: that op returns its first tensor argument instead
                                     (only when shape and dtype match; an in-place op is not run)

A null model that PASSES the correctness check (taskmod.compare: allclose and relative L2
under the task's tolerance) is an audit failure (status "fail"): a cheat produces it for free.
Each null model is also judged by elementwise allclose alone (KernelBench's check); one that
passes only that is listed in "passed_null_models_allclose" and makes the status "weak": our
evaluator rejects it, a harness with allclose alone would not.

Ops that add or clamp by a tiny scalar (0 < |v| <= 1e-3, an "eps") are not dropped: removing
an epsilon is numerically invisible by design, not a degenerate task. They are listed under
"eps_ops". View ops, copies, dtype casts and factory ops are not "compute" ops.

Dead ops are not dropped either. The tracing pass follows the data flow between storages (a
storage is named by its StorageImpl, pinned by a weak reference for the trace): an op is live
if a storage it writes (a result, or the tensor an in-place or out= op mutates) is an output's
storage or is read by a later live op, or if it hands a Python value to its caller (.item(),
bool(t)) or has no result (an assert). The rest reach no output: dropping one leaves the
outputs unchanged by construction, which says nothing about the task. BatchNorm in training
mode has one such op per layer, `num_batches_tracked.add_(1)` (the running statistics are
updated inside the batch-norm op itself, which is live); a discarded result (MultiheadAttention's
averaged weights, the unused fc of an LSTM task) is another. They are listed, as "k:OP" with
k their index in "compute_ops", under "dead_ops". In doubt an op is live: every op before a
read of data that no recorded op wrote and that did not exist before forward (torch.tensor(),
numpy, an extension: it may have come from any op so far), and every op at all when an
output's storage is such data or a tensor without a storage appears. State kept for a later
call is dead here; if it changed the next call's outputs, "deterministic" (two runs in a row)
fails.

Protocol: a JSON request on stdin,
  {"tasks": [{"id": ID, "path": PATH, "level": N or null}], "variants": [..] or [] (all) or
   ["@eval"] (per task, what `tritonrl eval` runs on this device: taskmod.eval_variants),
   "device": "cpu"|"cuda", "seed": 42, "timeout_s": 120, "max_memory_gb": 0}
and one JSON object per line on stdout: {"event": "begin", "task": ID} before a task,
{"event": "result", ...} per (task, variant), {"event": "end", "task": ID} after it. A task
file without VARIANTS has the one variant "default", audited whatever variants were asked.
Requested variants a file lacks are reported with status "skipped". A task that fails as a
whole gives one record with variant "*", status "error" and "oom": true when the failure was a
lack of (device) memory, which the parent retries alone when several runners share the GPU.

    python -m tritonrl_runner.audit < request.json
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import signal
import sys
import time
import traceback

import torch
import torch.utils._pytree as pytree
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode

from . import taskmod

EPS_MAX = 1e-3
_EPS_OPS = {"add", "add_", "sub", "sub_", "clamp", "clamp_", "clamp_min", "clamp_min_", "rsub"}
# Not computations: moving, copying, casting, creating or aliasing data.
_NON_COMPUTE = {
    "_to_copy", "to", "clone", "copy_", "contiguous", "detach", "alias", "lift_fresh",
    "lift_fresh_copy", "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
    "zeros", "zeros_like", "ones", "ones_like", "full", "full_like", "new_zeros", "new_ones",
    "new_full", "arange", "scalar_tensor", "_local_scalar_dense", "resize_", "set_",
    "expand_copy", "view_copy", "_unsafe_view", "unsqueeze_copy", "t_copy", "permute_copy",
    "transpose_copy", "slice_copy", "select_copy", "split_copy", "unbind_copy",
}


class TaskTimeout(Exception):
    pass


_PROTOCOL = sys.stdout  # task code's own prints are sent to stderr (see main)


def _finite_json(obj):
    """JSON has no NaN/Infinity: such floats become the strings "nan", "inf", "-inf"."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite_json(v) for v in obj]
    return obj


def _emit(obj) -> None:
    _PROTOCOL.write(json.dumps(_finite_json(obj), allow_nan=False) + "\n")
    _PROTOCOL.flush()


def _op_name(func) -> str:
    return func._schema.name.split("::", 1)[-1]


def _is_view_or_inplace(func) -> tuple[bool, bool]:
    rets = func._schema.returns
    view = any(r.alias_info is not None and not r.alias_info.is_write for r in rets)
    inplace = any(r.alias_info is not None and r.alias_info.is_write for r in rets)
    return view, inplace


def _first_tensor(args):
    for a in args:
        if isinstance(a, torch.Tensor):
            return a
    return None


def _eps_scalar(args) -> bool:
    return any(isinstance(a, (int, float)) and not isinstance(a, bool) and 0 < abs(a) <= EPS_MAX
               for a in args)


class _OpTracer(TorchDispatchMode):
    """Counts compute ops; with `drop` set, replaces that op's result with its first tensor arg.

    Without `drop` (the tracing pass) it also records, for every op it sees, the storages the
    op reads and writes, so that dead_ops() can tell which compute ops reach the outputs."""

    def __init__(self, drop: int | None = None, known=()):
        super().__init__()
        self.drop = drop
        self.ops: list[str] = []  # compute ops, in call order
        self.eps_ops: list[str] = []
        self.dropped = False  # whether `drop` could be applied (shape/dtype matched)
        self._flow = drop is None
        # (compute index or None, storages read, storages written, sink) per op, in call order
        self._nodes: list[tuple[int | None, set, set, bool]] = []
        # Weak references pin each StorageImpl's address (not its data) for the whole trace,
        # so that StorageImpl addresses name storages uniquely even after they are freed.
        self._refs: dict[int, StorageWeakRef] = {}
        self._opaque = False  # a tensor without a storage was seen: no op is called dead
        self._written: set[int] = set()  # storages some recorded op wrote
        self._barrier = 0  # the ops before this position are all live (see _record)
        self._known: set[int] = set()  # storages that existed before forward
        self._last_index: int | None = None  # compute index of the op being dispatched
        if self._flow:
            for t in known:
                k = self._key(t)
                if k is not None:
                    self._known.add(k)

    def _key(self, t: torch.Tensor) -> int | None:
        try:
            s = t.untyped_storage()
        except Exception:  # sparse and some subclass tensors have no storage
            self._opaque = True
            return None
        k = s._cdata
        if k not in self._refs:
            self._refs[k] = StorageWeakRef(s)
        return k

    def _record(self, func, args, kwargs, out, index: int | None) -> None:
        reads = {self._key(t) for t in pytree.tree_leaves((args, kwargs))
                 if isinstance(t, torch.Tensor)}
        writes = set()
        for i, a in enumerate(func._schema.arguments):  # in-place and out= arguments
            if a.alias_info is None or not a.alias_info.is_write:
                continue
            v = kwargs.get(a.name) if a.kwarg_only or i >= len(args) else args[i]
            writes |= {self._key(t) for t in pytree.tree_leaves(v) if isinstance(t, torch.Tensor)}
        leaves = [x for x in pytree.tree_leaves(out) if x is not None]
        writes |= {self._key(t) for t in leaves if isinstance(t, torch.Tensor)}
        # A Python value out of a tensor (.item(), bool(t)) can steer anything that follows;
        # an op with no output at all is there for its effect (an assert).
        sink = any(not isinstance(x, torch.Tensor) for x in leaves) or not writes
        reads.discard(None)
        writes.discard(None)
        if reads - self._written - self._known:
            # data made outside the dispatcher (torch.tensor(t.tolist()), numpy, an extension)
            # may have come from any op so far
            self._barrier = len(self._nodes)
        self._written |= writes
        self._nodes.append((index, reads, writes, sink))

    def dead_ops(self, outputs) -> list[int]:
        """Indices (into self.ops) of the compute ops of the traced forward whose results reach
        no output: an op is live if a storage it writes is an output's or is read by a later
        live op, or if it is a sink. Conservative: anything unclear keeps ops live."""
        if not self._flow or self._opaque:
            return []
        live = {self._key(o) for o in outputs}
        if self._opaque:
            return []
        barrier = self._barrier
        if live - self._written - self._known:  # an output made outside the dispatcher
            barrier = len(self._nodes)
        live_ops = set()
        for pos in range(len(self._nodes) - 1, -1, -1):
            index, reads, writes, sink = self._nodes[pos]
            if pos < barrier or sink or writes & live:
                if index is not None:
                    live_ops.add(index)
                live |= reads  # writes stay live: an in-place or partial write keeps the rest
        return [k for k in range(len(self.ops)) if k not in live_ops]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = self._dispatch(func, args, kwargs)
        if self._flow:
            self._record(func, args, kwargs, out, self._last_index)
        return out

    def _dispatch(self, func, args, kwargs):
        self._last_index = None
        name = _op_name(func)
        view, inplace = _is_view_or_inplace(func)
        first = _first_tensor(args)
        if view or name in _NON_COMPUTE or first is None:
            return func(*args, **kwargs)
        if name in _EPS_OPS and _eps_scalar(list(args[1:]) + list(kwargs.values())):
            self.eps_ops.append(str(func))
            return func(*args, **kwargs)
        index = len(self.ops)
        self._last_index = index
        self.ops.append(str(func))
        if index != self.drop:
            return func(*args, **kwargs)
        if inplace:
            self.dropped = True
            return args[0]
        out = func(*args, **kwargs)
        if isinstance(out, torch.Tensor) and out.shape == first.shape and out.dtype == first.dtype:
            self.dropped = True
            return first
        return out


def _stats(outs) -> dict:
    """Count, max |x|, mean and (sample) standard deviation of the finite values of all outputs,
    in one pass over float64 slices (taskmod.float64_chunks): each slice's count, mean and sum of
    squared deviations are merged into the running ones (Chan et al.), with no whole-output copy."""
    outs = [o for o in outs if o.numel()]
    if not outs:
        return {"numel": 0}
    n, mean, m2, max_abs = 0, 0.0, 0.0, 0.0
    for o in outs:
        for x in taskmod.float64_chunks(o):
            x = x[torch.isfinite(x)]
            k = x.numel()
            if not k:
                continue
            max_abs = max(max_abs, float(x.abs().max()))
            k_mean = float(x.mean())
            k_m2 = float(x.sub_(k_mean).square_().sum())
            delta = k_mean - mean
            m2 += k_m2 + delta * delta * n * k / (n + k)
            mean += delta * k / (n + k)
            n += k
    return {
        "numel": sum(o.numel() for o in outs),
        "max_abs": max_abs if n else math.nan,
        "mean": mean if n else math.nan,
        "std": math.sqrt(m2 / (n - 1)) if n > 1 else 0.0,
    }


def _mean(t: torch.Tensor) -> float:
    """Mean of all values in float64 (non-finite ones included, as torch's mean), by slices."""
    return sum(float(x.sum()) for x in taskmod.float64_chunks(t)) / t.numel()


allclose_only = taskmod.allclose_only  # KernelBench's check


def _judge(name, out, ref, atol, rtol) -> dict:
    r = taskmod.compare(out, ref, atol, rtol)
    return {"name": name, "passed": r.ok, "passed_allclose": allclose_only(out, ref, atol, rtol),
            "rel_l2": r.rel_l2}


def _zero_inputs(inputs):
    return [torch.zeros_like(t) if isinstance(t, torch.Tensor) and t.is_floating_point() else t
            for t in inputs]


def _preexisting_tensors(mod, model, inputs) -> list[torch.Tensor]:
    """Tensors that exist before forward: the inputs, the model's parameters, buffers and
    other tensor attributes, and the task module's global tensors."""
    found = list(pytree.tree_leaves(list(inputs)))
    for m in model.modules():
        found += pytree.tree_leaves(list(vars(m).values()))
    found += pytree.tree_leaves([v for v in vars(mod).values() if not callable(v)])
    return [t for t in found if isinstance(t, torch.Tensor)]


def audit_variant(mod, level, variant: str, device: str, seed: int) -> dict:
    taskmod.apply_variant(mod, variant)
    dtype = taskmod.task_dtype(mod)
    atol, rtol = taskmod.tolerance(mod)
    init = taskmod.init_inputs(mod, seed)
    model = taskmod.build_model(mod.Model, init, seed, device, dtype)
    inputs = taskmod.to_device(taskmod.make_inputs(mod, seed, device), device)

    def run(xs, mode=None):
        with torch.no_grad(), (mode if mode is not None else contextlib.nullcontext()):
            return [o.detach() for o in taskmod.flatten_outputs(model(*xs))]

    ref = run(inputs)
    ref2 = run(inputs)
    res: dict = {"atol": atol, "rtol": rtol, "dtype": str(dtype).replace("torch.", ""),
                 "output_shapes": [list(o.shape) for o in ref], "ref_stats": _stats(ref)}
    bitwise = all(torch.equal(a, b) for a, b in zip(ref, ref2))
    floats = [o for o in ref if o.is_floating_point() or o.is_complex()]
    checks = {
        "deterministic": bitwise or taskmod.compare(ref2, ref, atol, rtol).ok,
        "bitwise_deterministic": bitwise,
        "finite": all(bool(torch.isfinite(o).all()) for o in floats),
        "not_constant": all(o.numel() <= 1 or bool(o.max() != o.min()) for o in ref),
    }
    other = taskmod.to_device(taskmod.make_inputs(mod, seed + 1, device), device)
    checks["input_sensitive"] = not taskmod.compare(run(other), ref, atol, rtol).ok
    res["checks"] = checks

    nulls: list[tuple[str, list]] = []
    nulls.append(("zeros", [torch.zeros_like(o) for o in ref]))
    if any(o.numel() > 1 for o in ref):  # for a scalar the mean is the reference itself;
        nulls.append(("mean", [torch.full_like(o, _mean(o)) if o.numel() else o
                               for o in ref]))  # input_sensitive covers constant scalars
    if len(ref) == 1:
        for i, x in enumerate(inputs):
            if isinstance(x, torch.Tensor) and x.shape == ref[0].shape and x.dtype == ref[0].dtype:
                nulls.append((f"passthrough:{i}", [x]))
    null_results = []
    for name, out in nulls:
        null_results.append(_judge(name, out, ref, atol, rtol))
    try:
        null_results.append(_judge("zeroed_inputs", run(_zero_inputs(inputs)), ref, atol, rtol))
    except Exception as e:  # the reference may reject zero inputs; not a cheat that passes
        null_results.append({"name": "zeroed_inputs", "passed": False, "passed_allclose": False,
                             "error": repr(e)[:200]})

    if level is None or level >= 2:
        tracer = _OpTracer(known=_preexisting_tensors(mod, model, inputs))
        dead = set(tracer.dead_ops(run(inputs, tracer)))
        res["compute_ops"] = tracer.ops
        res["eps_ops"] = tracer.eps_ops
        res["dead_ops"] = [f"{k}:{tracer.ops[k]}" for k in sorted(dead)]
        for k, op in enumerate(tracer.ops):
            if k in dead:
                continue  # its result reaches no output: dropping it passes by construction
            dropper = _OpTracer(drop=k)
            try:
                out = run(inputs, dropper)
            except Exception:
                continue  # the rest of forward cannot run without this op: it matters
            if not dropper.dropped:
                continue
            null_results.append(_judge(f"drop:{k}:{op}", out, ref, atol, rtol))
    res["null_models"] = null_results
    res["passed_null_models"] = [n["name"] for n in null_results if n["passed"]]
    failed_checks = [k for k, v in checks.items() if k != "bitwise_deterministic" and not v]
    res["failed_checks"] = failed_checks
    res["passed_null_models_allclose"] = [n["name"] for n in null_results
                                          if n["passed_allclose"] and not n["passed"]]
    if failed_checks or res["passed_null_models"]:
        res["status"] = "fail"
    else:
        res["status"] = "weak" if res["passed_null_models_allclose"] else "ok"
    return res


def _release_device_memory(device: str) -> None:
    # The caching allocator keeps a finished task's blocks; other runners may need them.
    if device == "cuda":
        gc.collect()
        torch.cuda.empty_cache()


def _on_alarm(signum, frame):
    raise TaskTimeout()


def main() -> int:
    global _PROTOCOL
    # The protocol gets its own descriptor; fd 1 and sys.stdout then go to stderr, so a print()
    # in a task (Python or native) cannot corrupt the record stream.
    sys.stdout.flush()
    _PROTOCOL = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    req = json.load(sys.stdin)
    device = req.get("device", "cpu")
    seed = int(req.get("seed", 42))
    timeout = float(req.get("timeout_s", 0) or 0)
    want = list(req.get("variants") or [])
    mem_gb = float(req.get("max_memory_gb", 0) or 0)
    if mem_gb > 0:
        import resource
        limit = int(mem_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 references in true fp32
    torch.backends.cudnn.allow_tf32 = False
    signal.signal(signal.SIGALRM, _on_alarm)
    for task in req["tasks"]:
        tid, path, level = task["id"], task["path"], task.get("level")
        _emit({"event": "begin", "task": tid})
        start = time.monotonic()
        if timeout > 0:
            signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            mod = taskmod.load_module(path)
            missing = taskmod.check_task(mod)
            if missing:
                raise ValueError(f"missing {', '.join(missing)}")
            have = taskmod.variants(mod)
            if want == ["@eval"]:  # what `tritonrl eval` runs on this device
                todo = taskmod.eval_variants(mod, device)
            else:
                todo = have if have == ["default"] or not want else want
            for v in todo:
                t0 = time.monotonic()
                if v not in have:
                    _emit({"event": "result", "task": tid, "variant": v, "status": "skipped",
                           "error": f"no variant {v!r}"})
                    continue
                r = audit_variant(mod, level, v, device, seed)
                r.update({"event": "result", "task": tid, "variant": v,
                          "seconds": round(time.monotonic() - t0, 3)})
                _emit(r)
            taskmod.unload_module(mod)
        except TaskTimeout:
            _emit({"event": "result", "task": tid, "variant": "*", "status": "timeout",
                   "error": f"over {timeout:g} s", "seconds": round(time.monotonic() - start, 3)})
        except BaseException as e:  # noqa: BLE001 - any failure of a task file is reported
            if isinstance(e, KeyboardInterrupt):
                raise
            tb = traceback.format_exception_only(type(e), e)[-1].strip()
            _emit({"event": "result", "task": tid, "variant": "*", "status": "error",
                   "error": tb[:500], "oom": taskmod.is_out_of_memory(e)})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            _release_device_memory(device)
        _emit({"event": "end", "task": tid})
    return 0


if __name__ == "__main__":
    sys.exit(main())
