"""Triton solution: row prefix sums, a block scan (tl.cumsum) plus the running total of earlier blocks."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _cumsum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    out_row = out_ptr + row * n_cols
    carry = tl.zeros([], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=0.0)
        tl.store(out_row + offs, tl.cumsum(x, axis=0) + carry, mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        _cumsum_kernel[(rows,)](x, out, cols, BLOCK=1024)
        return out
