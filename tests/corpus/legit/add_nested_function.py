# corpus: legit
# task: level1/2_AddBroadcast
# what: a nested function defined inside forward performs the launch, one program per row
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_add_kernel(a_ptr, b_ptr, c_ptr, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        m = cols < N
        a = tl.load(a_ptr + row * N + cols, mask=m)
        b = tl.load(b_ptr + cols, mask=m)
        tl.store(c_ptr + row * N + cols, a + b, mask=m)


class ModelNew(nn.Module):
    def forward(self, a, b):
        def run(lhs, rhs):
            rows, cols = lhs.shape
            res = torch.empty_like(lhs)
            row_add_kernel[(rows,)](lhs, rhs, res, cols, BLOCK_N=256)
            return res

        return run(a.contiguous(), b.contiguous())
