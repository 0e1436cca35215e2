# corpus: legit
# task: level1/1_ReLU
# what: a small helper class owns the block size and the output allocation and launches the kernel from __call__
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ReluLauncher:
    def __init__(self, block):
        self.block = block

    def grid(self, n):
        return (triton.cdiv(n, self.block),)

    def __call__(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[self.grid(n)](x, y, n, BLOCK=self.block)
        return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = ReluLauncher(512)

    def forward(self, x):
        return self.relu(x.contiguous())
