"""Triton solution: mean over the middle dim; each program owns a column block of one batch entry and walks the rows."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _mean_dim1_kernel(x_ptr, out_ptr, R, C, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    col_mask = cols < C
    base = x_ptr + b * R * C
    acc = tl.zeros([BLOCK_R, BLOCK_C], dtype=tl.float32)
    for start in range(0, R, BLOCK_R):
        rows = start + tl.arange(0, BLOCK_R)
        mask = (rows[:, None] < R) & col_mask[None, :]
        acc += tl.load(base + rows[:, None] * C + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + b * C + cols, tl.sum(acc, axis=0) / R, mask=col_mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        batch, rows, cols = x.shape
        out = torch.empty(batch, cols, device=x.device, dtype=x.dtype)
        BLOCK_C = 128
        _mean_dim1_kernel[(batch, triton.cdiv(cols, BLOCK_C))](
            x, out, rows, cols, BLOCK_R=32, BLOCK_C=BLOCK_C)
        return out
