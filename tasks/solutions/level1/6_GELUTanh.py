"""Triton solution: tanh-approximated GELU, tanh built from exp."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gelu_tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    t = tl.exp(-2.0 * tl.abs(u))
    th = (1.0 - t) / (1.0 + t)
    th = tl.where(u < 0.0, -th, th)
    y = 0.5 * x * (1.0 + th)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        _gelu_tanh_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
        return out
