# corpus: legit
# task: level1/1_ReLU
# what: a loop over (kernel, grid) pairs: one kernel for the bulk of the elements, another for the tail
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_bulk_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


@triton.jit
def relu_tail_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        xf = x.contiguous().view(-1)
        y = torch.empty_like(xf)
        n = xf.numel()
        bulk = (n // 1024) * 1024
        jobs = [
            (relu_bulk_kernel, (max(bulk // 1024, 1),), 1024, 0, bulk),
            (relu_tail_kernel, (1,), 1024, bulk, n - bulk),
        ]
        for kernel, grid, block, start, count in jobs:
            if count > 0:
                kernel[grid](xf[start:], y[start:], count, BLOCK=block)
        return y.view(x.shape)
