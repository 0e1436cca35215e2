# corpus: legit
# task: level1/4_RowSum
# what: a frozen dataclass holds the row-sum kernel and its block size; forward reads both from the plan kept on self
# expect: correct
from dataclasses import dataclass

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@dataclass(frozen=True)
class RowPlan:
    kernel: object
    block: int


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.plan = RowPlan(rowsum_kernel, 512)

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        plan = self.plan
        plan.kernel[(rows,)](x, y, cols, BLOCK=plan.block)
        return y
