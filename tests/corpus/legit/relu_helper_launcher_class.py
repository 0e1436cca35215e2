# corpus: legit
# task: level1/1_ReLU
# what: a small helper class owns the kernel and its block size and launches it from __call__
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


class ElementwiseLauncher:
    def __init__(self, kernel, block):
        self.kernel = kernel
        self.block = block

    def __call__(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        self.kernel[(triton.cdiv(n, self.block),)](x, y, n, BLOCK=self.block)
        return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = ElementwiseLauncher(relu_kernel, 512)

    def forward(self, x):
        return self.relu(x.contiguous())
