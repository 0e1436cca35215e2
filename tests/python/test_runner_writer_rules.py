"""The writer proof's value rules (python/tritonrl_runner/hooks.py: the subset and mixing rules of
LaunchRecorder._gathered_part) on data made here, checked against what the data was made to be:
a copy of torch's values or values a kernel computed. The whole proof, through the worker, is in
test_runner_guards.py and the corpus."""
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from tritonrl_runner import hooks  # noqa: E402


def test_a_value_two_inputs_share_leaves_a_broadcast_a_broadcast():
    # Found by drawing maximum_kernel_on_expanded_copy's inputs: with seed 560 one value of a is
    # also in b, which made b's broadcast look like a partial copy of a as well (k = 0).
    g = torch.Generator().manual_seed(560)
    a, b = torch.randn(2, 7, 90, generator=g), torch.randn(2, 1, 90, generator=g)
    assert int(torch.isin(a.reshape(-1), b.reshape(-1)).sum()) == 1
    pool = b.expand_as(a).contiguous().reshape(-1)
    assert hooks._times_rearranged(pool, [a.reshape(-1), b.reshape(-1)]) == 7
    assert hooks._times_rearranged(pool[: pool.numel() // 2], [a.reshape(-1), b.reshape(-1)]) == 0
    assert hooks._times_rearranged(torch.cat([a.reshape(-1), pool]).flip(0), [a.reshape(-1), b.reshape(-1)]) == 0
    assert hooks._times_rearranged(torch.cat([a.reshape(-1), b.reshape(-1)]).flip(0),
                                   [a.reshape(-1), b.reshape(-1)]) == 1
