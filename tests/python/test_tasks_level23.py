"""Every level2/level3 task's Triton solution matches its reference on the small variant, run
through the Triton CPU interpreter, under the task's own tolerance and the shared check
(tritonrl_runner.taskmod.compare: allclose and relative L2)."""
import os

os.environ["TRITON_INTERPRET"] = "1"

import pathlib  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
from tritonrl_runner import taskmod  # noqa: E402

LEVELS = ("level2", "level3")
MIN_TASKS = {"level2": 21, "level3": 10}


def _number(p: pathlib.Path) -> int:
    return int(p.stem.split("_", 1)[0])


def _tasks(level):
    return sorted((ROOT / "tasks" / level).glob("*.py"), key=_number)


ALL = [p for level in LEVELS for p in _tasks(level)]


def test_suite_size_and_anchor():
    for level in LEVELS:
        assert len(_tasks(level)) >= MIN_TASKS[level]
        numbers = [_number(p) for p in _tasks(level)]
        assert numbers == list(range(1, len(numbers) + 1)), "task numbers are 1..n without gaps"
    assert (ROOT / "tasks/level2/1_LinearBiasReLU.py").is_file()


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_metadata(path):
    mod = taskmod.load_module(path)
    assert taskmod.check_task(mod) == []
    assert set(taskmod.variants(mod)) >= {"small", "medium", "large"}
    # module-level defaults are the "medium" variant
    for key, value in mod.VARIANTS["medium"].items():
        assert getattr(mod, key) == value, key
    assert taskmod.task_dtype(mod) in (torch.float32, torch.float16, torch.bfloat16)
    assert (ROOT / "tasks/solutions" / path.parent.name / path.name).is_file()


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_solution_matches_reference_small(path):
    task = taskmod.load_module(path)
    sol = taskmod.load_module(ROOT / "tasks/solutions" / path.parent.name / path.name)
    taskmod.apply_variant(task, "small")
    dtype = taskmod.task_dtype(task)
    atol, rtol = taskmod.tolerance(task)
    init = taskmod.init_inputs(task, 0)
    ref_model = taskmod.build_model(task.Model, init, 42, "cpu", dtype)
    new_model = taskmod.build_model(sol.ModelNew, init, 42, "cpu", dtype)
    for seed in (1, 2):
        inputs = taskmod.make_inputs(task, seed)
        for t in inputs:
            if isinstance(t, torch.Tensor) and t.is_floating_point():
                assert t.dtype == dtype, "get_inputs must create floating inputs in DTYPE"
        with torch.no_grad():
            ref = ref_model(*inputs)
            out = new_model(*inputs)
        assert isinstance(out, torch.Tensor) and out.dtype == ref.dtype
        result = taskmod.compare(out, ref, atol, rtol)
        assert result.ok, f"seed {seed}: {result.reason} (max abs err {result.max_abs_err:.3g})"
