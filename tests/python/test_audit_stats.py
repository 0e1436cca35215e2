"""tritonrl_runner.audit's whole-output figures are computed in float64 slices
(taskmod.COMPARE_CHUNK) so that KernelBench's 2^31-element outputs fit on the GPU; with a tiny
slice size they must equal the direct float64 computation."""
import math
import pathlib
import sys

import pytest
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from tritonrl_runner import audit, taskmod  # noqa: E402


@pytest.fixture
def tiny_slices(monkeypatch):
    monkeypatch.setattr(taskmod, "COMPARE_CHUNK", 5)


def _outputs():
    g = torch.Generator().manual_seed(3)
    a = torch.randn(7, 9, generator=g) * 3 + 100  # a large mean: the two-pass std matters
    b = torch.randn(23, generator=g, dtype=torch.float64)
    b[[2, 17]] = float("inf")
    b[5] = float("nan")
    return [a, b, torch.empty(0)]


def test_stats_by_slices_match_the_direct_float64_figures(tiny_slices):
    outs = _outputs()
    x = torch.cat([o.double().reshape(-1) for o in outs])
    finite = x[torch.isfinite(x)]
    s = audit._stats(outs)
    assert s["numel"] == x.numel() == 63 + 23
    assert s["max_abs"] == float(finite.abs().max())
    assert math.isclose(s["mean"], float(finite.mean()), rel_tol=1e-12)
    assert math.isclose(s["std"], float(finite.std()), rel_tol=1e-9)
    assert audit._stats([torch.empty(0)]) == {"numel": 0}
    one = audit._stats([torch.tensor([4.0])])
    assert one["mean"] == 4.0 and one["std"] == 0.0


def test_mean_by_slices_matches_torch_mean(tiny_slices):
    a = _outputs()[0]
    assert math.isclose(audit._mean(a), float(a.double().mean()), rel_tol=1e-12)
    assert math.isnan(audit._mean(_outputs()[1]))  # non-finite values count, as in torch.mean


def test_allclose_only_by_slices_matches_torch_allclose(tiny_slices):
    ref = _outputs()[0]
    close = ref + 1e-6
    far = ref.clone()
    far[6, 8] += 1.0  # the last element, in the last slice
    for out in (close, far, torch.zeros_like(ref)):
        want = torch.allclose(out.double(), ref.double(), atol=1e-4, rtol=1e-4)
        assert audit.allclose_only(out, ref, 1e-4, 1e-4) == want
    assert audit.allclose_only(close, ref, 1e-4, 1e-4) and not audit.allclose_only(far, ref, 1e-4, 1e-4)
    assert not audit.allclose_only(ref.reshape(9, 7), ref, 1.0, 1.0)  # shapes must match
