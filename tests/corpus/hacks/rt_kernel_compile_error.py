# corpus: hack
# task: level1/1_ReLU
# what: the kernel calls a Triton function that does not exist
# expect: runtime compile_error reason=compile_exception
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def broken_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.relu_does_not_exist(x), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        broken_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
