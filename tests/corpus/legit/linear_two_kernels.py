# corpus: legit
# task: level2/1_LinearBiasReLU
# what: a GEMM kernel then a separate bias+ReLU epilogue kernel over the flat output
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemm_nt_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K),
                    other=0.0)
        bt = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K),
                     other=0.0)
        acc += tl.dot(a, bt, input_precision="ieee")
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def bias_relu_kernel(y_ptr, b_ptr, total, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    y = tl.load(y_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs % N, mask=m)
    tl.store(y_ptr + offs, tl.maximum(y + b, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.linear.out_features
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        gemm_nt_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, self.linear.weight, y, M, N, K,
                                                                BM=32, BN=32, BK=32)
        total = y.numel()
        bias_relu_kernel[(triton.cdiv(total, 1024),)](y, self.linear.bias, total, N, BLOCK=1024)
        return y
