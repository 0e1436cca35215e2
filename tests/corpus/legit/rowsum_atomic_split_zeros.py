# corpus: legit
# task: level1/4_RowSum
# what: a 2-D grid of (row, chunk) programs adding partial sums into a torch.zeros output with tl.atomic_add
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    vals = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.atomic_add(y_ptr + row, tl.sum(vals, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.zeros(rows, device=x.device, dtype=x.dtype)
        block = 512
        partial_sum_kernel[(rows, triton.cdiv(cols, block))](x, y, cols, BLOCK=block)
        return y
