# corpus: legit
# task: level1/1_ReLU
# what: the output starts as torch.zeros and the kernel stores only the positive elements (masked store); the negatives keep the fill's zeros, which the per-element writer proof allows (a constant fill is initialisation, not data)
# warn: func.copy_only_kernel (the kernel computes through its store mask alone, which the static rule does not count as compute)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_positive_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, v, mask=m & (v > 0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        relu_positive_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
