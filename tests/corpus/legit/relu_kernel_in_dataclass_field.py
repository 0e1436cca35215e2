# corpus: legit
# task: level1/1_ReLU
# what: the kernel and its block size are held in a dataclass; forward launches spec.kernel
# expect: correct
from dataclasses import dataclass

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


@dataclass
class LaunchSpec:
    kernel: object
    block: int


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.spec = LaunchSpec(kernel=relu_kernel, block=1024)

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        spec = self.spec
        spec.kernel[(triton.cdiv(n, spec.block),)](x, y, n, BLOCK=spec.block)
        return y
