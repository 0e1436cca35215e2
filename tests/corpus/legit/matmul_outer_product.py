# corpus: legit
# task: level1/5_Matmul
# what: no tl.dot, rank-1 updates over k with broadcasting (a CUDA-core style kernel)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def outer_product_mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mm = rm < M
    mn = rn < N
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K):
        a_col = tl.load(a_ptr + rm * K + k, mask=mm, other=0.0)
        b_row = tl.load(b_ptr + k * N + rn, mask=mn, other=0.0)
        acc += a_col[:, None] * b_row[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=mm[:, None] & mn[None, :])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.tile = (32, 32)

    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, K = a.shape
        N = b.shape[-1]
        c = a.new_empty((M, N))
        bm, bn = self.tile
        outer_product_mm[(triton.cdiv(M, bm), triton.cdiv(N, bn))](a, b, c, M, N, K, BM=bm, BN=bn)
        return c
