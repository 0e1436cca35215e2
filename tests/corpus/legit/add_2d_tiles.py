# corpus: legit
# task: level1/2_AddBroadcast
# what: 2-D tiles; the row vector is loaded once per column tile and broadcast
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bcast_kernel(a_ptr, b_ptr, c_ptr, M, N, stride_am, stride_cm,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = rn < N
    mask = (rm[:, None] < M) & mask_n[None, :]
    a = tl.load(a_ptr + rm[:, None] * stride_am + rn[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + rn, mask=mask_n, other=0.0)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], a + b[None, :], mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, N = a.shape
        c = torch.empty_like(a)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 64))
        add_bcast_kernel[grid](a, b, c, M, N, a.stride(0), c.stride(0), BLOCK_M=32, BLOCK_N=64)
        return c
