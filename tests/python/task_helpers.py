"""Loading and running built-in tasks (tasks/levelN) and their reference solutions
(tasks/solutions/levelN) the way the task contract in docs/tasks.md describes.

Shared by the per-level pytest files and bench/gpu/tasks_check.py. Loading, variants,
seeding, dtype casts and the correctness check delegate to the runner's own
python/tritonrl_runner/taskmod.py, so the suite is checked exactly as it is scored.
Stable API:
  repo_root(), task_files(level), solution_path(task_path), task_id(task_path),
  load_module(path), variant_names(mod), apply_variant(mod, name), torch_dtype(mod),
  tolerance(mod), make_init_inputs(mod), make_inputs(mod, seed, device),
  make_models(task_mod, sol_mod, seed, device), compare(out, ref, atol, rtol),
  outputs_close(out, ref, atol, rtol), max_abs_err(out, ref),
  compile_solution_for_gpu(task_mod, sol_path, seed, arch), require_interpreter().
"""
from __future__ import annotations

import pathlib
import sys

import torch

_ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(_ROOT / "python") not in sys.path:
    sys.path.insert(0, str(_ROOT / "python"))
from tritonrl_runner import taskmod  # noqa: E402


def repo_root() -> pathlib.Path:
    return _ROOT


def task_files(level: str) -> list[pathlib.Path]:
    """Task files of a suite folder such as "level1", ordered by their number."""
    folder = _ROOT / "tasks" / level

    def number(p: pathlib.Path) -> int:
        head = p.stem.split("_", 1)[0]
        return int(head) if head.isdigit() else 1 << 30

    return sorted(folder.glob("*.py"), key=lambda p: (number(p), p.name))


def solution_path(task_path) -> pathlib.Path:
    task_path = pathlib.Path(task_path)
    return task_path.parents[1] / "solutions" / task_path.parent.name / task_path.name


def task_id(task_path) -> str:
    task_path = pathlib.Path(task_path)
    return f"{task_path.parent.name}/{task_path.stem}"


def load_module(path):
    """A fresh module per call (variants set module globals), registered in sys.modules
    because @triton.jit reads the kernel's source through its module."""
    return taskmod.load_module(path)


def variant_names(mod) -> list[str]:
    return taskmod.variants(mod)


def apply_variant(mod, name: str) -> dict:
    """Sets the variant's shape overrides as module globals ("default" = none)."""
    return taskmod.apply_variant(mod, name)


def torch_dtype(mod) -> torch.dtype:
    return taskmod.task_dtype(mod)


def tolerance(mod) -> tuple[float, float]:
    """(atol, rtol): the task's ATOL/RTOL, else the default of its dtype."""
    return taskmod.tolerance(mod)


def make_init_inputs(mod, seed: int = 0) -> list:
    return taskmod.init_inputs(mod, seed)


def make_inputs(mod, seed: int, device="cpu") -> list:
    """Seeds torch, calls get_inputs() (CPU tensors) and moves tensors to device."""
    return taskmod.to_device(taskmod.make_inputs(mod, seed), device)


def make_models(task_mod, sol_mod, seed: int, device="cpu"):
    """(Model, ModelNew): each constructed on CPU right after torch.manual_seed(seed),
    moved to device, floating parameters and buffers cast to the task's DTYPE."""
    init = make_init_inputs(task_mod, seed)
    dtype = torch_dtype(task_mod)
    ref = taskmod.build_model(task_mod.Model, init, seed, device, dtype)
    new = taskmod.build_model(sol_mod.ModelNew, init, seed, device, dtype)
    return ref, new


def _as_list(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def compare(out, ref, atol: float, rtol: float):
    """The runner's check (taskmod.compare: allclose and relative L2, on the reference's
    device), plus equal dtypes: a float answer to an integer task (argmax) must not pass
    through the float64 compare."""
    outs, refs = _as_list(out), _as_list(ref)
    result = taskmod.compare(out, ref, atol, rtol)
    if result.ok and any(isinstance(o, torch.Tensor) and isinstance(r, torch.Tensor)
                         and o.dtype != r.dtype for o, r in zip(outs, refs)):
        result.ok, result.reason = False, "output dtype differs from the reference"
    return result


def outputs_close(out, ref, atol: float, rtol: float) -> bool:
    return compare(out, ref, atol, rtol).ok


def max_abs_err(out, ref) -> float:
    return compare(out, ref, 0.0, 0.0).max_abs_err


def require_interpreter() -> None:
    """Raises unless triton runs in interpreter mode in this process. TRITON_INTERPRET=1
    must be set before triton is first imported: triton.language's own jit helpers
    (reductions, scans) are made at import time, and if they are compiled-mode
    functions, interpreted kernels that reduce fail with "Cannot call @triton.jit'd
    outside of the scope of a kernel"."""
    import os

    import triton.language as tl
    from triton.runtime.interpreter import InterpretedFunction

    if os.environ.get("TRITON_INTERPRET") != "1":
        raise RuntimeError("set TRITON_INTERPRET=1 before importing triton")
    if not isinstance(tl.standard._sum_combine, InterpretedFunction):
        raise RuntimeError("triton was imported before TRITON_INTERPRET=1 was set in this "
                           "process; set it first (e.g. at the top of every test module)")


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
