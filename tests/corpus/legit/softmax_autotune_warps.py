# corpus: legit
# task: level1/3_Softmax
# what: autotune over num_warps and num_stages with the block size passed explicitly
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({}, num_warps=w, num_stages=s) for w in (2, 4, 8) for s in (1, 2)],
    key=["n_cols"],
)
@triton.jit
def softmax_fwd(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    row = tl.load(x_ptr + pid * n_cols + cols, mask=mask, other=float("-inf"))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    tl.store(y_ptr + pid * n_cols + cols, numerator / denominator, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n_rows, n_cols = x.size()
        softmax_fwd[(n_rows,)](x, out, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return out
