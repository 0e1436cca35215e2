# corpus: legit
# task: level1/2_AddBroadcast
# what: heuristics pick BLOCK_N from N (next power of two, capped) and the warp count
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.heuristics({
    "BLOCK_N": lambda args: min(triton.next_power_of_2(args["N"]), 1024),
    "num_warps": lambda args: 4,
})
@triton.jit
def add_rows(a_ptr, b_ptr, c_ptr, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    m = cols < N
    base = row.to(tl.int64) * N
    x = tl.load(a_ptr + base + cols, mask=m)
    y = tl.load(b_ptr + cols, mask=m)
    tl.store(c_ptr + base + cols, x + y, mask=m)


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        M, N = a.shape
        c = torch.empty_like(a)
        block_n = min(triton.next_power_of_2(N), 1024)
        add_rows[(M, triton.cdiv(N, block_n))](a, b.contiguous(), c, N)
        return c
