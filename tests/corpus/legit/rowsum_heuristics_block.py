# corpus: legit
# task: level1/4_RowSum
# what: @triton.heuristics derives the block size from the row length; one program per row
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n_cols"])})
@triton.jit
def rowsum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    vals = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(vals, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        rowsum_kernel[(x.shape[0],)](x, y, x.shape[1])
        return y
