# corpus: legit
# task: level1/5_Matmul
# what: torch makes a transposed copy of b (on the way to the kernel, so that each output column reads a contiguous row) and the kernel computes every dot product: torch's buffer is one input rearranged, the output sums the kernel computed, none within the tolerance of b's values beyond chance
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_bt_kernel(a_ptr, bt_ptr, c_ptr, M, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    mn = cols < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        mk = (k0 + ks) < K
        a = tl.load(a_ptr + row * K + k0 + ks, mask=mk, other=0.0)
        b = tl.load(bt_ptr + cols[:, None] * K + (k0 + ks)[None, :], mask=mn[:, None] & mk[None, :], other=0.0)
        acc += tl.sum(b * a[None, :], axis=1)
    tl.store(c_ptr + row * N + cols, acc, mask=mn)


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        a = a.contiguous()
        bt = b.t().contiguous()
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        matmul_bt_kernel[(M, triton.cdiv(N, 32))](a, bt, c, M, N, K, BLOCK_N=32, BLOCK_K=32)
        return c
