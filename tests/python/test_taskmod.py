"""tritonrl_runner.taskmod: loading task files, variants, seeding, tolerance, compare."""
import math
import pathlib
import sys
import textwrap

import pytest
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from tritonrl_runner import taskmod  # noqa: E402

TASK = textwrap.dedent(
    """
    import torch
    import torch.nn as nn

    DTYPE = "bfloat16"
    ATOL = 0.05
    VARIANTS = {"small": {"batch_size": 2, "dim": 8}, "medium": {"batch_size": 4, "dim": 16},
                "large": {"dim": 64}}
    batch_size = 4
    dim = 16

    class Model(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.linear = nn.Linear(d, d)
            self.register_buffer("scale", torch.ones(d))
        def forward(self, x):
            return self.linear(x) * self.scale

    def get_inputs():
        return [torch.randn(batch_size, dim, dtype=torch.bfloat16)]

    def get_init_inputs():
        return [dim]
    """
)

BARE = textwrap.dedent(
    """
    import torch
    N = 8
    class Model(torch.nn.Module):
        def forward(self, x):
            return x * 2
    def get_inputs():
        return [torch.rand(N)]
    """
)


@pytest.fixture
def task_file(tmp_path):
    p = tmp_path / "7_Linear.py"
    p.write_text(TASK)
    return p


def test_load_is_fresh_and_leaves_sys_path_alone(task_file):
    before = list(sys.path)
    a = taskmod.load_module(task_file)
    b = taskmod.load_module(task_file)
    assert a is not b and a.__name__ != b.__name__
    assert sys.modules[a.__name__] is a
    assert sys.path == before
    taskmod.unload_module(a)
    assert a.__name__ not in sys.modules
    c = taskmod.load_module(task_file, register=False)
    assert c.__name__ not in sys.modules


def test_check_task_names_missing_functions(tmp_path, task_file):
    assert taskmod.check_task(taskmod.load_module(task_file)) == []
    p = tmp_path / "bare.py"
    p.write_text(BARE)
    assert taskmod.check_task(taskmod.load_module(p)) == ["get_init_inputs"]


def test_variants_apply_and_restore(task_file):
    mod = taskmod.load_module(task_file)
    assert taskmod.variants(mod) == ["small", "medium", "large"]
    taskmod.apply_variant(mod, "small")
    assert (mod.batch_size, mod.dim) == (2, 8)
    assert taskmod.make_inputs(mod, 0)[0].shape == (2, 8)
    # "large" overrides dim only: batch_size must return to the file default, not stay 2.
    taskmod.apply_variant(mod, "large")
    assert (mod.batch_size, mod.dim) == (4, 64)
    with pytest.raises(KeyError):
        taskmod.apply_variant(mod, "huge")


def test_file_without_variants_has_default(tmp_path):
    p = tmp_path / "bare.py"
    p.write_text(BARE)
    mod = taskmod.load_module(p)
    assert taskmod.variants(mod) == ["default"]
    assert taskmod.apply_variant(mod, "default") == {}
    assert taskmod.task_dtype(mod) == torch.float32
    assert taskmod.tolerance(mod) == (1e-4, 1e-4)


def test_inputs_are_seeded(task_file):
    mod = taskmod.load_module(task_file)
    x1 = taskmod.make_inputs(mod, 5)[0]
    x2 = taskmod.make_inputs(mod, 5)[0]
    x3 = taskmod.make_inputs(mod, 6)[0]
    assert torch.equal(x1, x2) and not torch.equal(x1, x3)
    assert x1.dtype == torch.bfloat16
    assert taskmod.init_inputs(mod, 0) == [16]


def test_build_model_seeds_casts_and_matches_same_layout(task_file):
    mod = taskmod.load_module(task_file)
    dtype = taskmod.task_dtype(mod)
    assert dtype == torch.bfloat16
    assert taskmod.tolerance(mod) == (0.05, 1e-2)  # ATOL set, RTOL from the dtype

    class SameLayout(torch.nn.Module):
        def __init__(self, d):
            super().__init__()
            self.linear = torch.nn.Linear(d, d)

    m1 = taskmod.build_model(mod.Model, [16], 3, "cpu", dtype)
    m2 = taskmod.build_model(SameLayout, [16], 3, "cpu", dtype)
    m3 = taskmod.build_model(mod.Model, [16], 4, "cpu", dtype)
    assert m1.linear.weight.dtype == torch.bfloat16 and m1.scale.dtype == torch.bfloat16
    assert torch.equal(m1.linear.weight, m2.linear.weight)
    assert not torch.equal(m1.linear.weight, m3.linear.weight)


def test_compare_allclose_and_rel_l2():
    ref = torch.randn(1000, dtype=torch.float64) * 1e-3
    assert taskmod.compare(ref.clone(), ref, 1e-4, 1e-4).ok
    # zeros pass allclose (|ref| ~ atol) but fail the relative L2 bound
    r = taskmod.compare(torch.zeros_like(ref), ref, 1e-2, 1e-2)
    assert not r.ok and "relative L2" in r.reason and math.isclose(r.rel_l2, 1.0)
    # one wild element passes rel-L2 in a big tensor but fails allclose
    big = torch.randn(100000, dtype=torch.float64)
    bad = big.clone()
    bad[7] += 1.0
    r = taskmod.compare(bad, big, 1e-4, 1e-2)
    assert not r.ok and "allclose" in r.reason
    assert not taskmod.compare(torch.zeros(3), torch.zeros(4), 1, 1).ok
    nan = ref.clone()
    nan[0] = float("nan")
    assert not taskmod.compare(nan, ref, 1e9, 1e9).ok
    assert taskmod.compare((ref, 2.0), (ref.clone(), 2.0), 1e-4, 1e-4).ok
    assert not taskmod.compare((ref,), (ref, ref), 1e-4, 1e-4).ok


def test_compare_rel_l2_is_over_the_finite_reference_positions():
    # A matching inf must not blind the relative L2 check (inf - inf is NaN): zeros-plus-offset
    # answers to a tiny output pass allclose and must still fail rel-L2, as in the engine.
    ref = torch.full((1000,), 1e-3, dtype=torch.float64)
    ref[0] = float("inf")
    out = ref + 5e-3
    r = taskmod.compare(out, ref, 1e-2, 1e-2)
    assert not r.ok and "relative L2" in r.reason and math.isclose(r.rel_l2, 5.0, rel_tol=1e-6)
    nan_ref = ref.clone()
    nan_ref[1] = float("nan")
    nan_out = nan_ref.clone()
    assert taskmod.compare(nan_out, nan_ref, 1e-4, 1e-4).ok  # NaN where the reference has NaN


def test_compare_margin_is_the_worst_elements_share_of_its_allowance():
    # The same case as the engine's C++ test: 0.5 / (0.1 + 0.1 * 10) = 0.4545 and
    # 0.15 / (0.1 + 0.1 * 1) = 0.75; across outputs the worst one counts.
    ref = torch.tensor([10.0, 1.0, -3.0], dtype=torch.float64)
    out = torch.tensor([10.5, 1.15, -3.0], dtype=torch.float64)
    r = taskmod.compare(out, ref, 0.1, 0.1)
    assert r.ok and math.isclose(r.margin, 0.75, rel_tol=1e-9)
    r = taskmod.compare((ref, out), (ref.clone(), torch.tensor([10.0, 1.0, -3.0])), 0.1, 0.1)
    assert r.ok and math.isclose(r.margin, 0.75, rel_tol=1e-6)
    r = taskmod.compare(torch.tensor([1.5]), torch.tensor([1.0]), 0.1, 0.1)
    assert not r.ok and math.isclose(r.margin, 2.5, rel_tol=1e-6)
    assert taskmod.compare(ref.clone(), ref, 0.0, 0.0).margin == 0.0


def test_make_inputs_device_cpu_matches_the_default_path(tmp_path):
    # The CUDA path is taken only for CUDA devices; a CPU device keeps the CPU generator's values.
    p = tmp_path / "t.py"
    p.write_text("import torch\ndef get_inputs():\n    return [torch.randn(3, 5), 7]\n"
                 "def get_init_inputs():\n    return []\nclass Model(torch.nn.Module):\n"
                 "    def forward(self, x, k):\n        return x * k\n")
    mod = taskmod.load_module(str(p))
    a = taskmod.make_inputs(mod, 11)
    b = taskmod.make_inputs(mod, 11, "cpu")
    assert torch.equal(a[0], b[0]) and a[1] == b[1] == 7
    assert not torch.equal(a[0], taskmod.make_inputs(mod, 12, "cpu")[0])


def test_make_inputs_falls_back_to_the_cpu_for_the_code_not_for_the_device(tmp_path):
    # Whether the CUDA path falls back to the CPU must depend on the task alone: a failure of the
    # device (out of memory beside other workers, a CUDA error) is raised, since the CPU path's
    # values differ from the GPU's and falling back under load would change a verdict.
    assert taskmod.is_device_failure(torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 1.25 GiB"))
    assert taskmod.is_device_failure(RuntimeError("CUDA error: an illegal memory access was encountered"))
    assert taskmod.is_device_failure(RuntimeError("cuDNN error: out of memory"))
    assert not taskmod.is_device_failure(ValueError("get_inputs needs numpy arrays"))
    assert not taskmod.is_device_failure(
        RuntimeError("Expected all tensors to be on the same device, but found cuda:0 and cpu"))
    # Here, without a GPU, making a tensor under the CUDA context fails ('Found no NVIDIA driver'):
    # that says the machine has no device, not that one failed, so the CPU values come back.
    p = tmp_path / "t.py"
    p.write_text("import torch\ndef get_inputs():\n    return [torch.randn(2, 3)]\n"
                 "def get_init_inputs():\n    return []\n")
    mod = taskmod.load_module(str(p))
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError) as no_driver:
            with torch.device("cuda"):
                torch.randn(2, 3)
        assert not taskmod.is_device_failure(no_driver.value)
        assert torch.equal(taskmod.make_inputs(mod, 3, "cuda")[0], taskmod.make_inputs(mod, 3, "cpu")[0])


def _compare_cases():
    g = torch.Generator().manual_seed(11)
    ref = torch.randn(1003, generator=g, dtype=torch.float64)
    late = ref.clone()
    late[997] += 1.0  # one wild element in the last slice
    edge = ref + 0.9 * (1e-4 + 1e-4 * ref.abs())  # every element at 90 % of its allowance
    special = ref.clone()
    special[[3, 500]] = float("inf")
    special[[4, 999]] = float("-inf")
    special[[5, 998]] = float("nan")
    special_out = special.clone()
    special_out[10] += 1e-6
    tiny = ref * 1e-4
    bad_inf = ref.clone()
    bad_inf[1001] = float("inf")  # a non-finite value where the reference is finite, late
    far_then_inf = ref + 1.0
    far_then_inf[1002] = float("nan")
    return [
        (ref.clone(), ref, 1e-4, 1e-4),
        (late, ref, 1e-4, 1e-4),
        (edge, ref, 1e-4, 1e-4),
        (special_out, special, 1e-4, 1e-4),
        (torch.zeros_like(tiny), tiny, 1e-2, 1e-2),  # allclose passes, rel-L2 fails
        (bad_inf, ref, 1e9, 1e9),
        (far_then_inf, ref, 1e-4, 1e-4),  # both wrong: the non-finite value is reported
        (ref.to(torch.bfloat16), ref.float(), 1e-2, 1e-2),
        (ref.to(torch.float16).reshape(17, 59), ref.float().reshape(17, 59), 1e-2, 1e-2),
        ((ref.clone(), torch.arange(10)), (ref, torch.arange(10)), 1e-4, 1e-4),
        ((ref.clone(), late), (ref, ref), 1e-4, 1e-4),
        (ref.clone(), ref, 0.0, 0.0),
    ]


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000])
def test_compare_by_slices_matches_the_whole_tensor(chunk):
    # Large outputs are compared in float64 slices (COMPARE_CHUNK); every verdict and figure must
    # be what one slice over the whole tensor gives (rel-L2 up to summation order).
    for k, (out, ref, atol, rtol) in enumerate(_compare_cases()):
        whole = taskmod.compare(out, ref, atol, rtol, chunk=1 << 30)
        sliced = taskmod.compare(out, ref, atol, rtol, chunk=chunk)
        assert (sliced.ok, sliced.reason) == (whole.ok, whole.reason), k
        assert sliced.max_abs_err == whole.max_abs_err and sliced.margin == whole.margin, k
        assert math.isclose(sliced.rel_l2, whole.rel_l2, rel_tol=1e-12) or sliced.rel_l2 == whole.rel_l2, k
    # The cases cover each outcome.
    reasons = {taskmod.compare(o, r, a, t).reason.split(": ")[-1].split("(")[0].split(" ")[0]
               for o, r, a, t in _compare_cases()}
    assert {"", "not", "relative", "non-finite"} <= reasons, reasons


def test_compare_by_slices_agrees_with_torch_allclose_alone():
    # allclose is elementwise: all slices close exactly when the whole tensor is.
    g = torch.Generator().manual_seed(5)
    for _ in range(50):
        ref = torch.randn(257, generator=g, dtype=torch.float64)
        out = ref + torch.randn(257, generator=g, dtype=torch.float64) * 1e-4
        want = torch.allclose(out, ref, atol=1e-4, rtol=1e-4, equal_nan=True)
        got = taskmod.compare(out, ref, 1e-4, 1e-4, chunk=16)
        assert got.ok == want or (want and "relative L2" in got.reason)
        assert (got.reason.startswith("output 0: not allclose")) == (not want)


def test_compare_leaves_its_inputs_unchanged():
    # Slices of float64 tensors on their own device must be copies: the compare works in place.
    ref = torch.tensor([1.0, float("inf"), float("nan"), -2.0], dtype=torch.float64)
    out = torch.tensor([1.5, float("inf"), float("nan"), -2.0], dtype=torch.float64)
    keep_ref, keep_out = ref.clone(), out.clone()
    taskmod.compare(out, ref, 0.1, 0.1, chunk=2)
    assert torch.equal(ref.nan_to_num(), keep_ref.nan_to_num()) and bool(ref.isnan()[2])
    assert torch.equal(out.nan_to_num(), keep_out.nan_to_num()) and bool(out.isnan()[2])


def test_tolerance_policies(task_file, tmp_path):
    mod = taskmod.load_module(task_file)  # bfloat16 with ATOL 0.05
    assert taskmod.tolerance(mod) == (0.05, 1e-2)
    assert taskmod.tolerance(mod, "ours") == (0.05, 1e-2)
    assert taskmod.tolerance(mod, "kernelbench") == (1e-2, 1e-2)  # the file's ATOL is ignored
    assert taskmod.tolerance(mod, "kernelbench-v0") == (1e-2, 1e-2)
    plain = tmp_path / "plain.py"
    plain.write_text("import torch.nn as nn\nclass Model(nn.Module): pass\n"
                     "def get_inputs(): return []\ndef get_init_inputs(): return []\n")
    fp32 = taskmod.load_module(plain)
    assert taskmod.tolerance(fp32, "kernelbench") == (1e-4, 1e-4)
    assert taskmod.tolerance(fp32, "kernelbench-v0") == (1e-2, 1e-2)
    with pytest.raises(ValueError, match="unknown tolerance policy"):
        taskmod.tolerance(fp32, "loose")


def test_kernelbench_policy_is_allclose_alone():
    ref = torch.full((1000,), 1e-6)
    zeros = torch.zeros(1000)
    # allclose at atol 1e-4 accepts zeros for outputs far below atol; the relative L2 bound does not.
    assert taskmod.passes(zeros, ref, 1e-4, 1e-4, "kernelbench")
    assert not taskmod.passes(zeros, ref, 1e-4, 1e-4, "ours")
    assert taskmod.uses_rel_l2("ours") and not taskmod.uses_rel_l2("kernelbench")


def test_eval_variants(task_file, tmp_path):
    mod = taskmod.load_module(task_file)
    assert taskmod.eval_variants(mod, "cpu") == ["small"]
    assert taskmod.eval_variants(mod, "cuda") == ["small", "medium", "large"]
    two = tmp_path / "two.py"
    two.write_text("import torch.nn as nn\nVARIANTS = {'medium': {'n': 2}, 'large': {'n': 3}}\nn = 1\n"
                   "class Model(nn.Module): pass\ndef get_inputs(): return []\n"
                   "def get_init_inputs(): return []\n")
    assert taskmod.eval_variants(taskmod.load_module(two), "cpu") == ["medium"]


def test_null_models_passing():
    torch.manual_seed(0)
    x = torch.rand(16, 32)
    # relu(1.5 * (y - 2)) of small y: zero everywhere, so zeros and the mean (0) pass.
    dead = torch.relu(1.5 * (x * 0.1 - 2))
    assert taskmod.null_models_passing([dead], [x], 1e-4, 1e-4) == ["zeros", "mean"]
    # relu of non-negative inputs is the identity: the input passed through passes.
    assert taskmod.null_models_passing([torch.relu(x)], [x], 1e-4, 1e-4) == ["passthrough:0"]
    # An ordinary output: none.
    y = torch.randn(16, 32)
    assert taskmod.null_models_passing([y * 2 + 1], [y], 1e-4, 1e-4) == []
    # Outputs far below atol: zeros pass allclose alone (KernelBench's rule), not ours.
    tiny = torch.rand(16, 32) * 1e-6 + 1e-7
    assert taskmod.null_models_passing([tiny], [x], 1e-4, 1e-4, "ours") == []
    assert "zeros" in taskmod.null_models_passing([tiny], [x], 1e-4, 1e-4, "kernelbench")


def test_passes_under_our_policy_is_exactly_compare_ok():
    # passes() decides most null models by a cheap allclose that stops at the first far slice;
    # it must give compare()'s verdict on every case, matched non-finite values included.
    ref = torch.linspace(-3, 3, 1200)
    cases = _compare_cases() + [
        (ref.reshape(40, 30), ref, 1e-4, 1e-4),  # shape mismatch
        ((ref, ref), ref, 1e-4, 1e-4),  # output count mismatch
        (torch.zeros_like(ref), ref, 1e-4, 1e-4),  # the zeros null model
    ]
    for k, (out, r, atol, rtol) in enumerate(cases):
        assert taskmod.passes(out, r, atol, rtol, "ours") == taskmod.compare(out, r, atol, rtol).ok, k
    assert any(taskmod.compare(o, r, a, t).ok for o, r, a, t in cases)  # both verdicts are covered
    assert not all(taskmod.compare(o, r, a, t).ok for o, r, a, t in cases)
