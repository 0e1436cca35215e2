# corpus: legit
# task: level1/11_LeakyReLU
# what: the kernel is a static method of a class nested in ModelNew, launched as self.Kernels.leaky with the slope as a runtime argument
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    class Kernels:
        @staticmethod
        @triton.jit
        def leaky(x_ptr, y_ptr, n, slope, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            x = tl.load(x_ptr + offs, mask=m)
            tl.store(y_ptr + offs, tl.maximum(x, 0.0) + slope * tl.minimum(x, 0.0), mask=m)

    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        self.Kernels.leaky[(triton.cdiv(n, 2048),)](x, y, n, self.negative_slope, BLOCK=2048)
        return y
