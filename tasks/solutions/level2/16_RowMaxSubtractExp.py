"""Triton solution: one program per row finds the maximum and writes exp(x - max)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl



@triton.jit
def _max_sub_exp_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    tl.store(y_ptr + row * N + cols, tl.exp(x - m).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        rows, n = x.shape
        y = torch.empty_like(x)
        _max_sub_exp_kernel[(rows,)](x, y, n, BLOCK=triton.next_power_of_2(n))
        return y
