"""Triton solution: a blocked row sum with the scale and sigmoid fused."""
import torch
import torch.nn as nn
import triton
import triton.language as tl



@triton.jit
def _row_sum_sigmoid_kernel(x_ptr, y_ptr, N, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        i = start + offs
        acc += tl.load(x_ptr + row * N + i, mask=i < N, other=0.0).to(tl.float32)
    s = tl.sum(acc, axis=0) * scale
    tl.store(y_ptr + row, (1.0 / (1.0 + tl.exp(-s))).to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        rows, n = x.shape
        y = torch.empty((rows,), device=x.device, dtype=x.dtype)
        _row_sum_sigmoid_kernel[(rows,)](x, y, n, float(self.scale), BLOCK=1024)
        return y
