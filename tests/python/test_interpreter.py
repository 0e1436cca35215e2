"""The pinned environment runs Triton through its CPU interpreter, including a
loop over a runtime bound (the case numpy 2.5 breaks)."""
import os

os.environ["TRITON_INTERPRET"] = "1"

import numpy  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):  # runtime bound
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def test_pinned_versions():
    assert torch.__version__.startswith("2.11.0")
    assert triton.__version__ == "3.6.0"
    major, minor = (int(p) for p in numpy.__version__.split(".")[:2])
    assert (major, minor) < (2, 5)


def test_interpreter_loop_over_runtime_bound():
    torch.manual_seed(0)
    x = torch.randn(5, 37)
    out = torch.empty(5)
    _row_sum_kernel[(5,)](x, out, x.shape[1], BLOCK=16)
    torch.testing.assert_close(out, x.sum(dim=1), rtol=1e-5, atol=1e-5)
