"""Triton solution: row gather; program (i, j) copies column block j of row index[i]."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _index_select_kernel(x_ptr, idx_ptr, out_ptr, D, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < D
    src = tl.load(idx_ptr + i)
    vals = tl.load(x_ptr + src * D + cols, mask=mask, other=0.0)
    tl.store(out_ptr + i * D + cols, vals, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        x = x.contiguous()
        index = index.contiguous()
        dim = x.shape[1]
        n_index = index.shape[0]
        out = torch.empty(n_index, dim, device=x.device, dtype=x.dtype)
        BLOCK = 1024
        _index_select_kernel[(n_index, triton.cdiv(dim, BLOCK))](x, index, out, dim, BLOCK=BLOCK)
        return out
