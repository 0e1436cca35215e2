# corpus: legit
# task: level1/11_LeakyReLU
# what: a factory builds the kernel once per module (a nested @triton.jit def) and __init__ keeps what it returns; the slope is a runtime argument
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


def make_leaky_relu():
    @triton.jit
    def leaky_relu(x_ptr, y_ptr, n, slope, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        tl.store(y_ptr + offs, tl.where(x > 0, x, x * slope), mask=m)

    return leaky_relu


class ModelNew(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope
        self.kernel = make_leaky_relu()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        self.kernel[(triton.cdiv(n, 1024),)](x, y, n, self.negative_slope, BLOCK=1024)
        return y
