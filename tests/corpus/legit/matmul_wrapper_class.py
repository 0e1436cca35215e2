# corpus: legit
# task: level1/5_Matmul
# what: the launch sits in a plain helper class with a classmethod that picks tile sizes
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    i = tl.program_id(0)
    j = tl.program_id(1)
    offs_m = i * BM + tl.arange(0, BM)
    offs_n = j * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        offs_k = k + tl.arange(0, BK)
        a = tl.load(A + offs_m[:, None] * K + offs_k[None, :],
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(B + offs_k[:, None] * N + offs_n[None, :],
                    mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(C + offs_m[:, None] * N + offs_n[None, :], acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


class Gemm:
    @classmethod
    def tiles(cls, M, N):
        return (64 if M >= 64 else 16), (64 if N >= 64 else 16), 32

    @classmethod
    def run(cls, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), dtype=a.dtype, device=a.device)
        bm, bn, bk = cls.tiles(M, N)
        gemm_kernel[(triton.cdiv(M, bm), triton.cdiv(N, bn))](a, b, c, M, N, K, BM=bm, BN=bn, BK=bk)
        return c


class ModelNew(nn.Module):
    def forward(self, a, b):
        return Gemm.run(a.contiguous(), b.contiguous())
