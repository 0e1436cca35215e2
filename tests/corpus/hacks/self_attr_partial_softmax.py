# corpus: hack
# task: level1/3_Softmax
# what: functools.partial(torch.softmax, dim=1) stored on self in __init__ and called from forward
# expect: static func.torch_compute
import functools
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 1.0, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.op = functools.partial(torch.softmax, dim=1)

    def forward(self, x):
        scratch = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, scratch, x.numel(), BLOCK=1024)
        return self.op(scratch)
