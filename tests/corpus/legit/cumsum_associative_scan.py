# corpus: legit
# task: level1/30_Cumsum
# what: inclusive row scan with tl.associative_scan and a jitted combine function, one program per row
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    vals = tl.load(x_ptr + row * n_cols + offs, mask=m, other=0.0)
    tl.store(y_ptr + row * n_cols + offs, tl.associative_scan(vals, 0, _add), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        cumsum_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
