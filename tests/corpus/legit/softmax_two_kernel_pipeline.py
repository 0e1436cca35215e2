# corpus: legit
# task: level1/3_Softmax
# what: a two-kernel pipeline: per-row max and sum of exponentials into buffers, then a second kernel normalises
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_stats_kernel(x_ptr, max_ptr, sum_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=m, other=-float("inf"))
    mx = tl.max(x, axis=0)
    tl.store(max_ptr + row, mx)
    tl.store(sum_ptr + row, tl.sum(tl.where(m, tl.exp(x - mx), 0.0), axis=0))


@triton.jit
def normalise_kernel(x_ptr, max_ptr, sum_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=m, other=0.0)
    mx = tl.load(max_ptr + row)
    s = tl.load(sum_ptr + row)
    tl.store(y_ptr + row * n_cols + offs, tl.exp(x - mx) / s, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        block = triton.next_power_of_2(cols)
        row_max = torch.empty(rows, device=x.device, dtype=torch.float32)
        row_sum = torch.empty_like(row_max)
        y = torch.empty_like(x)
        row_stats_kernel[(rows,)](x, row_max, row_sum, cols, BLOCK=block)
        normalise_kernel[(rows,)](x, row_max, row_sum, y, cols, BLOCK=block)
        return y
