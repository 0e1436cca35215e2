"""Load and drive one task file (KernelBench layout) from the runner.

A task file defines ``class Model(nn.Module)``, ``get_inputs()`` and
``get_init_inputs()``; optional module-level literals carry metadata:
``DTYPE`` ("float32" | "float16" | "bfloat16"), ``ATOL``/``RTOL`` and
``VARIANTS = {name: {CONSTANT: value, ...}}``. Candidate files (``ModelNew``)
load through the same function.

Stable API (the evaluation engine imports these; keep signatures):

    load_module(path, *, register=True) -> module
        Execute the file as a fresh module under a unique name
        (``tritonrl_task_<n>_<stem>``). sys.path is not touched. Installs
        ``interp_rounding`` first (bf16 casts in the CPU interpreter round to
        nearest even, as on a GPU). With
        ``register`` the module is entered in sys.modules under that unique
        name (Triton's JIT and dataclasses need a real module for source
        lookup); ``unload_module`` removes it.
    unload_module(mod) -> None
    check_task(mod) -> list[str]
        Names of the required task attributes the module lacks (empty if ok).
    variants(mod) -> list[str]
        The VARIANTS keys in file order, or ["default"] without VARIANTS.
    apply_variant(mod, name) -> dict
        Set the variant's overrides as module globals (restoring any earlier
        variant's overrides first) and return the overrides. "default" on a
        file without VARIANTS, or a file's own defaults, is a no-op.
    make_inputs(mod, seed, device=None) -> list
        ``torch.manual_seed(seed)`` then ``list(mod.get_inputs())``.
    init_inputs(mod, seed) -> list
        ``torch.manual_seed(seed)`` then ``list(mod.get_init_inputs())``.
    build_model(cls, init_args, seed, device="cpu", dtype=None) -> nn.Module
        Seed immediately before ``cls(*init_args)`` on CPU (so a ModelNew that
        builds the same layers in the same order gets the same weights), move it
        to ``device``, and cast floating parameters and buffers to ``dtype``
        when given. The module is left in its default (training) mode, as in
        KernelBench.
    to_device(obj, device) -> obj
        Move tensors (also inside lists/tuples) to a device.
    task_dtype(mod) -> torch.dtype          (default torch.float32)
    tolerance(mod, policy="ours") -> (atol, rtol)
        "ours": ATOL/RTOL if set, else fp32 1e-4, fp16/bf16 1e-2. "kernelbench": KernelBench's
        harness since its precision support (2025-11): atol = rtol = 1e-4 for fp32, 1e-2 for
        fp16/bf16, whatever the file says. "kernelbench-v0": KernelBench v0/v0.1, atol = rtol =
        1e-2 at every dtype.
    uses_rel_l2(policy) -> bool
        Whether the policy's check adds the relative L2 bound to allclose (only "ours").
    passes(out, ref, atol, rtol, policy="ours") -> bool
        The policy's check: compare() for "ours", allclose_only() for KernelBench's.
    allclose_only(out, ref, atol, rtol, *, equal_nan=False) -> bool
        KernelBench's check: same shapes and torch.allclose, nothing else (equal_nan: the
        allclose part of compare(), which passes() tries first).
    eval_variants(mod, device) -> list[str]
        The variants `tritonrl eval` runs by default: on the CPU "small" when the file has it,
        else its first; on a GPU all of them.
    null_models_passing(outs, inputs, atol, rtol, policy="ours") -> list[str]
        The cheap null models (zeros; the reference mean, for outputs of more than one element;
        input i passed through, when its shape and dtype equal the single output's) that pass
        the policy's check against the reference outputs `outs`: a task on which one passes
        cannot tell that fake from an honest kernel.
    flatten_outputs(out) -> list[torch.Tensor]
        A forward result (tensor, scalar, or nested tuple/list) as a flat list.
    compare(out, ref, atol, rtol) -> CompareResult
        The correctness check shared by the audit and the evaluator: for every
        output tensor, same shape, no non-finite value where the reference is
        finite, ``torch.allclose(out, ref, atol, rtol)`` AND a relative L2
        error ``||out - ref||_2 / ||ref||_2 <= max(rtol, 1e-5)`` (computed in
        float64 over the finite reference positions, as the engine does; a
        reference of norm 0 requires an exact match). Both must
        hold: allclose alone lets tiny outputs pass with zeros (the absolute
        term), rel-L2 alone lets a few wild elements hide in a large tensor.
        ``margin`` is the worst element's |out - ref| / (atol + rtol * |ref|).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import math
import os
import sys
from typing import Any

import torch

from tritonrl_runner import interp_rounding

_counter = itertools.count()
_DEFAULTS_ATTR = "__tritonrl_defaults__"
REQUIRED = ("Model", "get_inputs", "get_init_inputs")

_DTYPES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "float16": torch.float16,
    "fp16": torch.float16,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
}
_DEFAULT_TOL = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 1e-2}
REL_L2_FLOOR = 1e-5


def load_module(path: str | os.PathLike, *, register: bool = True):
    # Before any kernel of the file can run: the CPU interpreter must round bf16 like a GPU.
    interp_rounding.install()
    path = os.fspath(path)
    stem = "".join(c if c.isalnum() else "_" for c in os.path.splitext(os.path.basename(path))[0])
    name = f"tritonrl_task_{next(_counter)}_{stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: cannot load as a Python module")
    mod = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return mod


def unload_module(mod) -> None:
    if sys.modules.get(mod.__name__) is mod:
        del sys.modules[mod.__name__]


def check_task(mod) -> list[str]:
    return [n for n in REQUIRED if not hasattr(mod, n)]


def variants(mod) -> list[str]:
    v = getattr(mod, "VARIANTS", None)
    if not v:
        return ["default"]
    return list(v.keys())


def apply_variant(mod, name: str) -> dict:
    table = getattr(mod, "VARIANTS", None) or {}
    if name not in table and not (name == "default" and not table):
        raise KeyError(f"{getattr(mod, '__file__', mod)}: no variant {name!r} (has {variants(mod)})")
    saved = mod.__dict__.setdefault(_DEFAULTS_ATTR, {})
    for key, value in saved.items():  # undo an earlier variant
        setattr(mod, key, value)
    overrides = dict(table.get(name, {}))
    for key, value in overrides.items():
        if key not in saved:
            if not hasattr(mod, key):
                raise KeyError(f"{mod.__file__}: variant {name!r} sets {key!r}, not a module constant")
            saved[key] = getattr(mod, key)
        setattr(mod, key, value)
    return overrides


def make_inputs(mod, seed: int, device=None) -> list:
    """The task's get_inputs() under `seed`. With a CUDA `device` the tensors are created there
    directly (torch.device context): generating GB-sized inputs on the CPU and copying them took
    seconds per call on the H200. Both workers use the same path, so they see the same values; a
    get_inputs() that cannot run under the device context falls back to the CPU. That choice must
    depend on the task alone: a failure of the device itself (out of memory beside other workers,
    a CUDA error) is raised, not answered by the CPU path, whose values differ from the GPU's. (On
    an H100 at 16 jobs an honest solution's large variant, 2 x 1.3 GB made in get_inputs, was once
    judged inputs_differ; this fallback under memory pressure is the path that explains it.) The
    engine reruns an out-of-memory sample alone."""
    if device is not None and torch.device(device).type == "cuda":
        try:
            with torch.device(device):
                torch.manual_seed(seed)
                return list(mod.get_inputs())
        except Exception as e:
            if is_device_failure(e):
                raise
    torch.manual_seed(seed)
    return list(mod.get_inputs())


def is_out_of_memory(e: BaseException) -> bool:
    """True for a failure to get memory (the driver's in cuBLAS/cuDNN handles too): the engine and
    the audit's parent rerun such a sample or task alone."""
    if isinstance(e, (torch.OutOfMemoryError, MemoryError)):
        return True
    text = str(e)
    # cuDNN reports a failed workspace allocation as an internal error.
    return any(m in text for m in ("out of memory", "ALLOC_FAILED", "CUDNN_STATUS_INTERNAL_ERROR"))


def is_device_failure(e: BaseException) -> bool:
    """Whether an exception says the device failed (its memory, a CUDA error), not the code."""
    return is_out_of_memory(e) or "CUDA error" in str(e)


def init_inputs(mod, seed: int) -> list:
    torch.manual_seed(seed)
    return list(mod.get_init_inputs())


def _cast_floating(model: torch.nn.Module, dtype: torch.dtype) -> None:
    for p in itertools.chain(model.parameters(), model.buffers()):
        if p.is_floating_point() and p.dtype != dtype:
            p.data = p.data.to(dtype)


def build_model(cls, init_args, seed: int, device="cpu", dtype: torch.dtype | None = None,
                refuse_overrides: bool = False):
    """The model, built and moved; with refuse_overrides (a candidate), a model that replaces
    nn.Module behaviour is refused right after its constructor, before any other of its methods
    (to() included) runs (trusted.module_overrides)."""
    torch.manual_seed(seed)
    model = cls(*init_args)
    if refuse_overrides:
        from tritonrl_runner import trusted

        found = trusted.module_overrides(model)
        if found:
            raise trusted.ModuleOverrideRefused("refused by the evaluator: " + "; ".join(found[:6]))
    model = model.to(device)
    if dtype is not None:
        _cast_floating(model, dtype)
    return model


def to_device(obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(o, device) for o in obj)
    return obj


def task_dtype(mod) -> torch.dtype:
    name = getattr(mod, "DTYPE", "float32")
    if isinstance(name, torch.dtype):
        return name
    try:
        return _DTYPES[str(name).lower()]
    except KeyError:
        raise ValueError(f"{getattr(mod, '__file__', mod)}: unknown DTYPE {name!r}") from None


TOLERANCE_POLICIES = ("ours", "kernelbench", "kernelbench-v0")


def tolerance(mod, policy: str = "ours") -> tuple[float, float]:
    default = _DEFAULT_TOL.get(task_dtype(mod), 1e-4)
    if policy == "ours":
        return float(getattr(mod, "ATOL", default)), float(getattr(mod, "RTOL", default))
    if policy == "kernelbench":
        return default, default
    if policy == "kernelbench-v0":
        return 1e-2, 1e-2
    raise ValueError(f"unknown tolerance policy {policy!r} (known: {', '.join(TOLERANCE_POLICIES)})")


def uses_rel_l2(policy: str) -> bool:
    return policy == "ours"


def eval_variants(mod, device) -> list[str]:
    names = variants(mod)
    if torch.device(device).type == "cpu":
        return ["small"] if "small" in names else names[:1]
    return names


def flatten_outputs(out) -> list:
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flatten_outputs(o)]
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (int, float, bool)):
        return [torch.tensor(out)]
    raise TypeError(f"unsupported output type {type(out).__name__}")


@dataclasses.dataclass
class CompareResult:
    ok: bool
    reason: str = ""  # why not ok ("" if ok)
    max_abs_err: float = 0.0
    rel_l2: float = 0.0
    # max |out - ref| / (atol + rtol * |ref|) over finite elements (above 1 fails allclose), as
    # the engine's CompareResult::tolerance_margin: how near the edge a passing output came.
    margin: float = 0.0


# Elements per float64 slice in compare() and the audit's statistics: outputs of KernelBench's
# largest shapes are 2^31 fp32 elements, whose whole float64 copies (17 GB each, several at once)
# ran an H200 out of memory.
COMPARE_CHUNK = 1 << 24


def _flat_slices(t: torch.Tensor, chunk: int | None = None):
    """Consecutive views of t flattened, at most `chunk` elements each (default COMPARE_CHUNK)."""
    chunk = max(1, chunk or COMPARE_CHUNK)
    flat = t.detach().reshape(-1)
    for start in range(0, flat.numel(), chunk):
        yield flat[start:start + chunk]


def float64_chunks(t: torch.Tensor, device=None, chunk: int | None = None):
    """Consecutive slices of t flattened, as float64 on `device` (t's own by default), at most
    `chunk` elements each (default COMPARE_CHUNK); always copies, so a slice may be changed in
    place."""
    dev = t.device if device is None else device
    for part in _flat_slices(t, chunk):
        yield part.to(dev, torch.float64, copy=True)


def compare(out: Any, ref: Any, atol: float, rtol: float, *, chunk: int | None = None) -> CompareResult:
    try:
        outs, refs = flatten_outputs(out), flatten_outputs(ref)
    except TypeError as e:
        return CompareResult(False, str(e), math.inf, math.inf)
    if len(outs) != len(refs):
        return CompareResult(False, f"{len(outs)} outputs, expected {len(refs)}", math.inf, math.inf)
    worst_abs, worst_rel, worst_margin = 0.0, 0.0, 0.0
    bound = max(rtol, REL_L2_FLOOR)
    for i, (o, r) in enumerate(zip(outs, refs)):
        if tuple(o.shape) != tuple(r.shape):
            return CompareResult(False, f"output {i}: shape {tuple(o.shape)}, expected {tuple(r.shape)}",
                                 math.inf, math.inf)
        if o.numel() == 0:
            continue
        # A non-finite value where the reference is finite fails before anything else is looked at
        # (finiteness survives the float64 cast, so the tensors' own dtypes do; by slices too).
        for o_part, r_part in zip(_flat_slices(o, chunk), _flat_slices(r, chunk)):
            if bool((~torch.isfinite(o_part.to(r.device)) & torch.isfinite(r_part)).any()):
                return CompareResult(False, f"output {i}: non-finite values", math.inf, math.inf)
        # On the reference's device, slice by slice: |out - ref| with matching non-finite pairs
        # counted as 0 (as the engine does), its max, its share of the allowance, the squared
        # norms for relative L2, and allclose -- an elementwise predicate, so all slices close
        # is exactly the whole tensor close.
        abs_max = margin_max = num2 = den2 = 0.0
        close = True
        for o64, r64 in zip(float64_chunks(o, r.device, chunk), float64_chunks(r, None, chunk)):
            close = close and torch.allclose(o64, r64, atol=atol, rtol=rtol, equal_nan=True)
            diff = o64.sub_(r64).abs_().nan_to_num_(nan=0.0, posinf=0.0, neginf=0.0)
            abs_max = max(abs_max, float(diff.max()))
            num2 += float(torch.dot(diff, diff))
            allowed = r64.abs().mul_(rtol).add_(atol)
            r64.nan_to_num_(nan=0.0, posinf=0.0, neginf=0.0)
            den2 += float(torch.dot(r64, r64))
            # 0/0 (an exact element under a zero tolerance) is no share at all; d/0 stays infinite.
            margin_max = max(margin_max, float(diff.div_(allowed).nan_to_num_(nan=0.0, posinf=math.inf).max()))
            del o64, r64, diff, allowed
        num, den = math.sqrt(num2), math.sqrt(den2)
        rel = (0.0 if num == 0.0 else math.inf) if den == 0.0 else num / den
        worst_abs, worst_rel = max(worst_abs, abs_max), max(worst_rel, rel)
        worst_margin = max(worst_margin, margin_max)
        if not close:
            return CompareResult(False, f"output {i}: not allclose(atol={atol:g}, rtol={rtol:g})",
                                 worst_abs, worst_rel, worst_margin)
        if rel > bound:
            return CompareResult(False, f"output {i}: relative L2 error {rel:.3g} > {bound:g}",
                                 worst_abs, worst_rel, worst_margin)
    return CompareResult(True, "", worst_abs, worst_rel, worst_margin)


def allclose_only(out, ref, atol: float, rtol: float, *, equal_nan: bool = False) -> bool:
    """KernelBench's check: same shapes and torch.allclose, nothing else; with equal_nan,
    compare()'s allclose alone. By float64 slices (allclose is elementwise, so every slice close
    is the whole close), the first 64K elements first, stopping at the first slice not close: a
    far-off output such as a null model is decided there, not after float64 copies of it all (on
    the dev VM, a medium-size ReLU trial's null models: 10.7 s through compare(), 0.9 s so)."""
    try:
        outs, refs = flatten_outputs(out), flatten_outputs(ref)
    except TypeError:
        return False

    def close(o, r, chunk=None):
        return all(torch.allclose(a, b, atol=atol, rtol=rtol, equal_nan=equal_nan)
                   for a, b in zip(float64_chunks(o, r.device, chunk), float64_chunks(r, None, chunk)))

    head = 1 << 16
    return len(outs) == len(refs) and all(
        tuple(o.shape) == tuple(r.shape)
        and close(o.reshape(-1)[:head], r.reshape(-1)[:head], head) and close(o, r)
        for o, r in zip(outs, refs))


def passes(out, ref, atol: float, rtol: float, policy: str = "ours") -> bool:
    if uses_rel_l2(policy):
        # compare() fails whatever is not allclose: the cheap test first decides most fakes.
        return allclose_only(out, ref, atol, rtol, equal_nan=True) and compare(out, ref, atol, rtol).ok
    return allclose_only(out, ref, atol, rtol)


def null_models_passing(outs, inputs, atol: float, rtol: float, policy: str = "ours") -> list[str]:
    refs = [r.detach() for r in flatten_outputs(outs)]
    if not refs or not all(r.is_floating_point() for r in refs):
        return []  # exact (integer, bool) outputs: a null model is judged by equality elsewhere
    with torch.no_grad():
        fakes = {"zeros": [torch.zeros_like(r) for r in refs]}
        if all(r.numel() > 1 for r in refs):
            fakes["mean"] = [torch.full_like(r, sum(float(x.sum()) for x in float64_chunks(r)) / r.numel())
                             for r in refs]
        if len(refs) == 1:
            for i, x in enumerate(inputs):
                if isinstance(x, torch.Tensor) and x.shape == refs[0].shape and x.dtype == refs[0].dtype:
                    fakes[f"passthrough:{i}"] = [x.to(refs[0].device)]
        return [name for name, fake in fakes.items() if passes(fake, refs, atol, rtol, policy)]
