"""Triton solution: row argmax; per-lane best value and first index, then the smallest index holding the row maximum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _row_argmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * n_cols
    best = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    best_idx = tl.zeros([BLOCK], dtype=tl.int64)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(base + offs, mask=offs < n_cols, other=float("-inf"))
        better = x > best  # strict: each lane keeps its first occurrence
        best = tl.where(better, x, best)
        best_idx = tl.where(better, offs.to(tl.int64), best_idx)
    row_max = tl.max(best, axis=0)
    big = tl.full([BLOCK], 2**62, dtype=tl.int64)
    first = tl.min(tl.where(best == row_max, best_idx, big), axis=0)
    tl.store(out_ptr + row, first)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty(rows, device=x.device, dtype=torch.int64)
        _row_argmax_kernel[(rows,)](x, out, cols, BLOCK=1024)
        return out
