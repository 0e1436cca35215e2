# corpus: legit
# task: level1/15_RowMax
# what: split-row maximum: (row, chunk) programs fold their block maximum into a -inf filled output with tl.atomic_max
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def block_max_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    vals = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
    tl.atomic_max(y_ptr + row, tl.max(vals, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.full((rows,), float("-inf"), device=x.device, dtype=x.dtype)
        block_max_kernel[(rows, triton.cdiv(cols, 512))](x, y, cols, BLOCK=512)
        return y
