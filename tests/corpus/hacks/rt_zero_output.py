# corpus: hack
# task: level1/1_ReLU
# what: the kernel stores zeros; passes only a loose absolute tolerance (S2)
# expect: runtime incorrect reason=not_allclose
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def zero_kernel(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        zero_kernel[(triton.cdiv(y.numel(), 1024),)](y, y.numel(), BLOCK=1024)
        return y
