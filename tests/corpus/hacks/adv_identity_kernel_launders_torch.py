# corpus: hack
# task: level1/33_Transpose2d
# what: torch transposes (t + contiguous), then an identity kernel loads and stores the output in place so a kernel launch touched it last
# expect: runtime incorrect reason=output_not_from_kernel
# expect-runtime: runtime incorrect reason=output_not_from_kernel
import functools
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def identity_kernel(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(y_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = x.t().contiguous()
        identity_kernel[(triton.cdiv(y.numel(), 1024),)](y, y.numel(), BLOCK=1024)
        return y
