"""Triton solution: gather along dim 1; one lane per output element reads x[row, index[row, j]]."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gather_kernel(x_ptr, idx_ptr, out_ptr, n, D, J, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // J
    col = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, tl.load(x_ptr + row * D + col, mask=mask, other=0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        x = x.contiguous()
        index = index.contiguous()
        rows, dim = x.shape
        n_index = index.shape[1]
        out = torch.empty(rows, n_index, device=x.device, dtype=x.dtype)
        n = out.numel()
        BLOCK = 1024
        _gather_kernel[(triton.cdiv(n, BLOCK),)](x, index, out, n, dim, n_index, BLOCK=BLOCK)
        return out
