"""Every fp16/bf16 task's solution stays well inside the task's tolerance over many seeds on the
small variant (CPU interpreter), not just on the two seeds the per-level tests use.

The evaluator draws fresh seeds on every run, so a solution whose worst element sits at the edge
of the tolerance fails now and then: a bf16 task once failed CI on one seed in a hundred. The
margin of a sample is max |out - ref| / (atol + rtol * |ref|) over its elements (above 1 fails
allclose); low-precision outputs differ from the reference by whole ulps, so the worst margin
over many seeds, not the typical one, is what decides whether a verdict is stable."""
import os

os.environ["TRITON_INTERPRET"] = "1"

import pathlib  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
from tritonrl_runner import taskmod  # noqa: E402

SEEDS = 150
# One bf16 ulp is at most 2**-7 of a value, 0.78 of the allowance rtol=1e-2 gives it; a solution
# that rounds once (as the references' GPU kernels do) stays within that.
MAX_MARGIN = 0.8


def _low_precision_tasks():
    found = []
    for path in sorted((ROOT / "tasks").glob("level*/*.py")):
        if taskmod.task_dtype(taskmod.load_module(path, register=False)) != torch.float32:
            found.append(path)
    return found


LOW = _low_precision_tasks()


def test_suite_has_low_precision_tasks():
    assert len(LOW) >= 6


@pytest.mark.parametrize("path", LOW, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_solution_margin_over_many_seeds(path):
    task = taskmod.load_module(path)
    sol = taskmod.load_module(ROOT / "tasks/solutions" / path.parent.name / path.name)
    taskmod.apply_variant(task, "small")
    dtype = taskmod.task_dtype(task)
    atol, rtol = taskmod.tolerance(task)
    worst, worst_seed = 0.0, None
    for seed in range(SEEDS):
        init = taskmod.init_inputs(task, 10_000 + seed)
        ref_model = taskmod.build_model(task.Model, init, 20_000 + seed, "cpu", dtype)
        new_model = taskmod.build_model(sol.ModelNew, init, 20_000 + seed, "cpu", dtype)
        inputs = taskmod.make_inputs(task, 30_000 + seed)
        with torch.no_grad():
            ref = ref_model(*inputs)
            out = new_model(*inputs)
        result = taskmod.compare(out, ref, atol, rtol)
        assert result.ok, f"seed {seed}: {result.reason}"
        if result.margin > worst:
            worst, worst_seed = result.margin, seed
    assert worst <= MAX_MARGIN, f"worst margin {worst:.3f} at seed {worst_seed} (bound {MAX_MARGIN})"
