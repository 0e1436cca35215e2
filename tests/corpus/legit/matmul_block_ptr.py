# corpus: legit
# task: level1/5_Matmul
# what: block pointers (tl.make_block_ptr / tl.advance) with boundary checks
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_bp_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (sam, sak), (pm * BM, 0), (BM, BK), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (sbk, sbn), (0, pn * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b, input_precision="ieee")
        a_bp = tl.advance(a_bp, (0, BK))
        b_bp = tl.advance(b_bp, (BK, 0))
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (scm, scn), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tl.store(c_bp, acc, boundary_check=(0, 1))


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        matmul_bp_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.stride(0), c.stride(1), BM=32, BN=32, BK=32)
        return c
