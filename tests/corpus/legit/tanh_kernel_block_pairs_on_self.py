# corpus: legit
# task: level1/9_Tanh
# what: __init__ keeps a list of (kernel, block) pairs on self; forward loops over them, one launch per pair over its share of the rows
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    tl.store(y_ptr + offs, tl.where(x >= 0, t, -t), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.plan = [(tanh_kernel, 256), (tanh_kernel, 1024)]

    def forward(self, x):
        xf = x.contiguous().view(-1)
        y = torch.empty_like(xf)
        n = xf.numel()
        half = n // 2
        spans = [(0, half), (half, n - half)]
        for (kernel, block), (start, count) in zip(self.plan, spans):
            if count > 0:
                kernel[(triton.cdiv(count, block),)](xf[start:], y[start:], count, BLOCK=block)
        return y.view(x.shape)
