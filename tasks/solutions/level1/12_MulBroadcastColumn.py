"""Triton solution: a * b with b [M, 1] broadcast over columns; b is indexed by row = offset // N."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _mul_col_kernel(a_ptr, b_ptr, out_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs // N, mask=mask, other=0.0)
    tl.store(out_ptr + offs, a * b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        out = torch.empty_like(a)
        n = a.numel()
        BLOCK = 1024
        _mul_col_kernel[(triton.cdiv(n, BLOCK),)](a, b, out, n, a.shape[1], BLOCK=BLOCK)
        return out
