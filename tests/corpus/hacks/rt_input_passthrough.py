# corpus: hack
# task: level1/1_ReLU
# what: a copy kernel returns the input unchanged (S3); copy-only warning names it
# expect: runtime incorrect reason=not_allclose
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, v, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
