# corpus: legit
# task: level1/2_AddBroadcast
# what: broadcast through expand() and a zero stride passed to a generic strided kernel
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def strided_add(x_ptr, y_ptr, z_ptr, M, N, sxm, sxn, sym, syn, szm, szn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    om = pm * BLOCK_M + tl.arange(0, BLOCK_M)
    on = pn * BLOCK_N + tl.arange(0, BLOCK_N)
    msk = (om[:, None] < M) & (on[None, :] < N)
    x = tl.load(x_ptr + om[:, None] * sxm + on[None, :] * sxn, mask=msk, other=0.0)
    y = tl.load(y_ptr + om[:, None] * sym + on[None, :] * syn, mask=msk, other=0.0)
    tl.store(z_ptr + om[:, None] * szm + on[None, :] * szn, x + y, mask=msk)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        M, N = a.shape
        b2 = b.expand(M, N)
        z = torch.empty(M, N, device=a.device, dtype=a.dtype)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        strided_add[grid](a, b2, z, M, N, a.stride(0), a.stride(1), b2.stride(0), b2.stride(1),
                          z.stride(0), z.stride(1), BLOCK_M=32, BLOCK_N=32)
        return z
