"""Every level-1 task: metadata, non-degenerate reference outputs, and its Triton
reference solution matching the task on the small variant under the CPU interpreter."""
import os

os.environ["TRITON_INTERPRET"] = "1"  # before any @triton.jit in a solution is created

import pytest  # noqa: E402
import torch  # noqa: E402

import task_helpers as th  # noqa: E402

th.require_interpreter()

LEVEL = "level1"
TASKS = th.task_files(LEVEL)
ANCHORS = ["1_ReLU", "2_AddBroadcast", "3_Softmax", "4_RowSum", "5_Matmul"]
SEEDS = (0, 1234)
# Triton 3.6's interpreter converts 1-element arrays to scalars in loops over runtime
# bounds; numpy < 2.5 only warns about it (see tests/python/test_interpreter.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore:Conversion of an array with ndim:DeprecationWarning")


def _ids(paths):
    return [p.stem for p in paths]


def test_suite_has_anchor_tasks_and_enough_tasks():
    stems = [p.stem for p in TASKS]
    assert len(stems) >= 32
    assert stems[:5] == ANCHORS
    numbers = [int(s.split("_", 1)[0]) for s in stems]
    assert numbers == list(range(1, len(stems) + 1)), "task numbers must be 1..n without gaps"
    for path in TASKS:
        assert th.solution_path(path).is_file(), f"no solution for {th.task_id(path)}"


@pytest.mark.parametrize("path", TASKS, ids=_ids(TASKS))
def test_task_metadata(path):
    mod = th.load_module(path)
    doc = (mod.__doc__ or "").strip()
    assert doc and "\n" not in doc, "docstring must be one line"
    assert mod.DTYPE in ("float32", "float16", "bfloat16")
    atol, rtol = th.tolerance(mod)
    assert 0 < atol <= 1e-2 and 0 < rtol <= 1e-2
    assert list(mod.VARIANTS) == ["small", "medium", "large"]
    keys = set(mod.VARIANTS["medium"])
    assert keys, "variants must override shape constants"
    for name, overrides in mod.VARIANTS.items():
        assert set(overrides) == keys, f"variant {name} overrides other names"
    for key, value in mod.VARIANTS["medium"].items():
        assert getattr(mod, key) == value, f"module default {key} differs from medium"


@pytest.mark.parametrize("path", TASKS, ids=_ids(TASKS))
def test_large_variant_inputs_fit(path):
    """Large inputs stay under ~2 GB; built on the meta device so nothing is allocated."""
    mod = th.load_module(path)
    th.apply_variant(mod, "large")
    with torch.device("meta"):
        inputs = mod.get_inputs()
    total = sum(t.numel() * t.element_size() for t in inputs if isinstance(t, torch.Tensor))
    assert total <= 4.5e9, f"large inputs take {total / 1e9:.2f} GB"
    small = th.load_module(path)
    th.apply_variant(small, "small")
    with torch.device("meta"):
        small_total = sum(t.numel() * t.element_size() for t in small.get_inputs()
                          if isinstance(t, torch.Tensor))
    assert small_total * 1000 < total, "large must be far larger than small"


def _allclose(a, b, atol, rtol):
    return torch.allclose(a, b, atol=atol, rtol=rtol)


def _check_inputs(mod, inputs):
    dtype = th.torch_dtype(mod)
    for t in inputs:
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            assert t.dtype == dtype, "floating inputs must be created in the task's DTYPE"
            assert t.device.type == "cpu"
            assert t.abs().max() > 0, "all-zero input"


@pytest.mark.parametrize("path", TASKS, ids=_ids(TASKS))
def test_solution_matches_reference_small(path):
    task = th.load_module(path)
    sol = th.load_module(th.solution_path(path))
    th.apply_variant(task, "small")
    atol, rtol = th.tolerance(task)
    outputs = []
    for seed in SEEDS:
        inputs = th.make_inputs(task, seed)
        _check_inputs(task, inputs)
        kept = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
        ref_model, new_model = th.make_models(task, sol, seed)
        with torch.no_grad():
            ref = ref_model(*inputs)
            out = new_model(*inputs)
        assert isinstance(out, torch.Tensor) and out.device.type == "cpu"
        assert out.shape == ref.shape and out.dtype == ref.dtype
        # Inputs unchanged, output not an input alias.
        for before, after in zip(kept, inputs):
            if isinstance(before, torch.Tensor):
                assert torch.equal(before, after), "solution mutated an input"
                assert out.untyped_storage().data_ptr() != after.untyped_storage().data_ptr()
        result = th.compare(out, ref, atol, rtol)
        assert result.ok, f"seed {seed}: {result.reason} (max abs err {result.max_abs_err:.3g})"

        # Non-degenerate reference (hacks S2/S5): finite, not constant, and null
        # candidates (zeros, the mean, an unchanged input) fail even plain allclose,
        # the check KernelBench-style evaluators use without the relative-L2 term.
        r = ref.double()
        assert torch.isfinite(r).all()
        assert r.numel() > 1 and r.max() > r.min(), "reference output is constant"
        assert not _allclose(torch.zeros_like(r), r, atol, rtol)
        if ref.is_floating_point():
            assert not _allclose(torch.full_like(r, r.mean().item()), r, atol, rtol)
        for t in inputs:
            if isinstance(t, torch.Tensor) and t.shape == ref.shape:
                assert not _allclose(t.double(), r, atol, rtol), "reference equals an input"
        outputs.append(ref)
    assert not torch.equal(outputs[0], outputs[1]), "reference output does not depend on the seed"


def test_gpu_check_script_runs_on_cpu(tmp_path):
    """bench/gpu/tasks_check.py in its CPU mode (interpreter) checks and reports tasks."""
    import json
    import subprocess
    import sys

    script = th.repo_root() / "bench" / "gpu" / "tasks_check.py"
    out_json = tmp_path / "check.json"
    proc = subprocess.run(
        [sys.executable, str(script), "--device", "cpu", "--levels", LEVEL,
         "--tasks", "1_ReLU,16_Argmax", "--variants", "small", "--time-variants", "small",
         "--reps", "2", "--warmup", "1", "--json", str(out_json)],
        capture_output=True, text=True, timeout=300,
        env={k: v for k, v in os.environ.items() if k != "OUT"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(out_json.read_text())
    rows = {(r["task"], r["variant"]): r for r in report["rows"]}
    assert set(rows) == {("level1/1_ReLU", "small"), ("level1/16_Argmax", "small")}
    for row in rows.values():
        assert row["ok"] and row["error"] is None
        assert row["max_abs_err"] == 0.0  # both ops are exact
        assert row["ref_ms"] > 0 and row["sol_ms"] > 0
    assert "level1/16_Argmax" in proc.stdout and "2 checks, 2 ok, 0 failed" in proc.stdout


def test_solutions_compile_for_sm90(tmp_path):
    """Every solution kernel compiles to a cubin for the H200 (sm_90) without a GPU; the
    interpreter does not apply the compiler's rules. Runs in a fresh process because
    this one imported triton in interpreter mode."""
    import json
    import subprocess
    import sys

    script = th.repo_root() / "bench" / "gpu" / "tasks_check.py"
    out_json = tmp_path / "compile.json"
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "OUT")}
    env["TRITON_CACHE_DIR"] = str(tmp_path / "triton-cache")
    proc = subprocess.run(
        [sys.executable, str(script), "--compile-only", "--levels", LEVEL, "--variants", "small",
         "--json", str(out_json)],
        capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    rows = json.loads(out_json.read_text())["rows"]
    assert sorted(r["task"] for r in rows) == sorted(th.task_id(p) for p in TASKS)
    assert all(r["ok"] and r["kernels"] for r in rows)


def test_suite_compare_is_the_runners_plus_equal_dtypes():
    """The suite check is taskmod.compare (on the reference's device, so no separate GPU copy
    of its rules exists), and a float answer to an integer task fails."""
    torch.manual_seed(0)
    ref = torch.randn(1000)
    for out in (ref.clone(), ref + 1e-2, torch.zeros_like(ref), (ref.clone(), ref + 1.0)):
        expected_ref = (ref, ref) if isinstance(out, tuple) else ref
        want = th.taskmod.compare(out, expected_ref, 1e-4, 1e-4)
        got = th.compare(out, expected_ref, 1e-4, 1e-4)
        assert (got.ok, got.reason, got.margin) == (want.ok, want.reason, want.margin)
    assert not th.compare(torch.zeros(4), torch.zeros(4, dtype=torch.int64), 1e-4, 1e-4).ok


@pytest.mark.parametrize("policy", ["standard", "strict"])
def test_solutions_pass_static_verifier(policy):
    """Every solution is honest by the verifier's own rules (no torch compute, nn layer
    call or state reachable from forward, ...). Uses the Python mirror of the verifier,
    which tests/python/test_verify_parity.py keeps equal to the C++ one."""
    import sys

    sys.path.insert(0, str(th.repo_root() / "bench" / "verify"))
    import pyverify

    # Data-movement tasks are solved by kernels that only copy, which the verifier
    # reports as a warning (not a rejection); nothing else may warn.
    copy_tasks = {"31_IndexSelectRows", "32_GatherColumns", "33_Transpose2d",
                  "34_PermuteNCHWToNHWC"}
    allow = pyverify.load_allowlist()
    for path in TASKS:
        verdict = pyverify.verify_code(th.solution_path(path).read_text(), allow, policy)
        assert verdict["valid"], (th.task_id(path), verdict["violations"])
        expected = ["func.copy_only_kernel"] if path.stem in copy_tasks else []
        assert [w["rule"] for w in verdict["warnings"]] == expected, th.task_id(path)
