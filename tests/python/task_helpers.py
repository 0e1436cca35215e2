"""Loading and running built-in tasks (tasks/levelN) and their reference solutions
(tasks/solutions/levelN) the way the task contract in docs/tasks.md describes.

Shared by the per-level pytest files and bench/gpu/tasks_check.py. Stable API:
  repo_root(), task_files(level), solution_path(task_path), task_id(task_path),
  load_module(path), variant_names(mod), apply_variant(mod, name), torch_dtype(mod),
  tolerance(mod), make_init_inputs(mod), make_inputs(mod, seed, device),
  make_models(task_mod, sol_mod, seed, device), outputs_close(out, ref, atol, rtol),
  max_abs_err(out, ref).
"""
from __future__ import annotations

import importlib.util
import itertools
import pathlib
import sys

import torch

_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# Tolerance defaults by dtype when a task declares no ATOL/RTOL (docs/tasks.md).
_DEFAULT_TOL = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 1e-2}
_counter = itertools.count()


def repo_root() -> pathlib.Path:
    return pathlib.Path(__file__).resolve().parents[2]


def task_files(level: str) -> list[pathlib.Path]:
    """Task files of a suite folder such as "level1", ordered by their number."""
    folder = repo_root() / "tasks" / level

    def number(p: pathlib.Path) -> int:
        head = p.stem.split("_", 1)[0]
        return int(head) if head.isdigit() else 1 << 30

    return sorted(folder.glob("*.py"), key=lambda p: (number(p), p.name))


def solution_path(task_path: pathlib.Path) -> pathlib.Path:
    task_path = pathlib.Path(task_path)
    return task_path.parents[1] / "solutions" / task_path.parent.name / task_path.name


def task_id(task_path: pathlib.Path) -> str:
    task_path = pathlib.Path(task_path)
    return f"{task_path.parent.name}/{task_path.stem}"


def load_module(path) -> object:
    """Imports a file as a fresh module each call (variants mutate module globals).

    Imported from a real file because @triton.jit reads the function's source."""
    path = pathlib.Path(path)
    name = f"_tritonrl_task_{path.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # triton.jit and dataclasses look modules up by name
    spec.loader.exec_module(module)
    return module


def variant_names(mod) -> list[str]:
    variants = getattr(mod, "VARIANTS", None)
    return list(variants) if variants else ["default"]


def apply_variant(mod, name: str) -> None:
    """Sets the variant's shape overrides as module globals ("default" = none)."""
    variants = getattr(mod, "VARIANTS", None) or {"default": {}}
    if name not in variants:
        raise KeyError(f"unknown variant {name!r}; have {sorted(variants)}")
    for key, value in variants[name].items():
        setattr(mod, key, value)


def torch_dtype(mod) -> torch.dtype:
    name = getattr(mod, "DTYPE", "float32")
    if name not in _DTYPES:
        raise ValueError(f"unsupported DTYPE {name!r}")
    return _DTYPES[name]


def tolerance(mod) -> tuple[float, float]:
    """(atol, rtol): the task's ATOL/RTOL, else the default of its dtype."""
    default = _DEFAULT_TOL[torch_dtype(mod)]
    return float(getattr(mod, "ATOL", default)), float(getattr(mod, "RTOL", default))


def make_init_inputs(mod) -> list:
    return list(mod.get_init_inputs())


def _to_device(value, device):
    return value.to(device) if isinstance(value, torch.Tensor) else value


def make_inputs(mod, seed: int, device="cpu") -> list:
    """Seeds torch, calls get_inputs() (CPU tensors) and moves tensors to device."""
    torch.manual_seed(seed)
    return [_to_device(v, device) for v in mod.get_inputs()]


def _build(cls, init, seed: int, dtype: torch.dtype, device):
    torch.manual_seed(seed)
    model = cls(*init)
    if dtype != torch.float32:
        model = model.to(dtype)  # casts floating parameters and buffers only
    return model.to(device).eval()


def make_models(task_mod, sol_mod, seed: int, device="cpu"):
    """(Model, ModelNew): each constructed on CPU right after torch.manual_seed(seed),
    its floating parameters cast to the task's DTYPE, then moved to device."""
    init = make_init_inputs(task_mod)
    dtype = torch_dtype(task_mod)
    ref = _build(task_mod.Model, init, seed, dtype, device)
    new = _build(sol_mod.ModelNew, init, seed, dtype, device)
    return ref, new


def _as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def outputs_close(out, ref, atol: float, rtol: float) -> bool:
    """Same structure, shapes and dtypes, and allclose elementwise (NaN never equal)."""
    outs, refs = _as_list(out), _as_list(ref)
    if len(outs) != len(refs):
        return False
    for o, r in zip(outs, refs):
        if not isinstance(o, torch.Tensor) or not isinstance(r, torch.Tensor):
            if o != r:
                return False
            continue
        if o.shape != r.shape or o.dtype != r.dtype:
            return False
        if not torch.allclose(o.double(), r.double(), atol=atol, rtol=rtol):
            return False
    return True


def max_abs_err(out, ref) -> float:
    errs = [
        (o.double() - r.double()).abs().max().item() if o.numel() else 0.0
        for o, r in zip(_as_list(out), _as_list(ref))
        if isinstance(o, torch.Tensor) and o.shape == r.shape
    ]
    return max(errs) if errs else float("inf")


def compile_solution_for_gpu(task_mod, sol_path, seed: int = 0, arch: int = 90) -> list[str]:
    """Compiles every Triton kernel the solution launches in one forward to a cubin for
    CUDA sm_<arch> (H100/H200 = 90) without a GPU, catching what the CPU interpreter
    does not check (compiler type rules, unsupported ops). Returns the kernel names.

    Runs forward on CPU tensors of task_mod's current variant with launches recorded
    instead of run (outputs are garbage), then calls triton.compile on the signatures
    Triton itself derives from the recorded arguments. Needs a process that imported
    triton without TRITON_INTERPRET: in interpreter mode triton.language's own jit
    helpers (reductions, scans) are interpreted functions that cannot be compiled."""
    import os

    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction, mangle_type

    if os.environ.get("TRITON_INTERPRET") or not isinstance(tl.standard._sum_combine, JITFunction):
        raise RuntimeError("compile_solution_for_gpu needs a process without TRITON_INTERPRET")
    sol_mod = load_module(sol_path)
    inputs = make_inputs(task_mod, seed)
    _, new = make_models(task_mod, sol_mod, seed)
    launches = []
    original_run = JITFunction.run

    def record(self, *args, grid, warmup, **kwargs):
        launches.append((self, args, kwargs))

    JITFunction.run = record
    try:
        with torch.no_grad():
            new(*inputs)
    finally:
        JITFunction.run = original_run
    if not launches:
        raise AssertionError("forward launched no Triton kernel")
    names = []
    for fn, args, kwargs in launches:
        bound = dict(zip(fn.arg_names, args))
        bound.update(kwargs)
        signature, constexprs = {}, {}
        for param in fn.params:
            value = bound[param.name] if param.name in bound else param.default
            if param.is_constexpr:
                signature[param.name] = "constexpr"
                constexprs[param.name] = value
            else:
                signature[param.name] = mangle_type(value)
        triton.compile(ASTSource(fn, signature=signature, constexprs=constexprs),
                       target=GPUTarget("cuda", arch, 32))
        names.append(fn.__name__)
    return names
