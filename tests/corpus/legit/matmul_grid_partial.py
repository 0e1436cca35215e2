# corpus: legit
# task: level1/5_Matmul
# what: the grid is a functools.partial over a module-level grid function, the kernel a 2-D tiled matmul
# expect: correct
import functools
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def tile_grid(meta, M, N):
    return (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), dtype=torch.float32, device=a.device)
        grid = functools.partial(tile_grid, M=M, N=N)
        matmul_kernel[grid](a, b, c, M, N, K, BM=32, BN=32, BK=32)
        return c
