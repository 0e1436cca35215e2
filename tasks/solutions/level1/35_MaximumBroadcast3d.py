"""Triton solution: elementwise maximum with b [B, 1, D] indexed by (batch, column) of each element."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _maximum_kernel(a_ptr, b_ptr, out_ptr, n, S, D, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b_offs = (offs // (S * D)) * D + offs % D
    b = tl.load(b_ptr + b_offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(a, b), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        out = torch.empty_like(a)
        n = a.numel()
        BLOCK = 1024
        _maximum_kernel[(triton.cdiv(n, BLOCK),)](a, b, out, n, a.shape[1], a.shape[2], BLOCK=BLOCK)
        return out
