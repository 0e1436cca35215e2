# corpus: hack
# task: level1/31_IndexSelectRows
# what: index_select done row by row with narrow + copy_ (allowlisted data movement, a dozen int() reads); a kernel zeroes the output first; the small variant, run first on either device, fails the writer proof (torch's copy_ wrote the output) before the GPU's 65536-row variants reach the per-element loop limit
# expect: runtime incorrect reason=output_not_from_kernel
# expect-runtime: runtime incorrect reason=output_not_from_kernel
import functools
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fill_kernel(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x, index):
        y = torch.empty((index.shape[0], x.shape[1]), device=x.device, dtype=x.dtype)
        fill_kernel[(triton.cdiv(y.numel(), 1024),)](y, y.numel(), BLOCK=1024)
        for i in range(index.shape[0]):
            y.narrow(0, i, 1).copy_(x.narrow(0, int(index[i]), 1))
        return y
