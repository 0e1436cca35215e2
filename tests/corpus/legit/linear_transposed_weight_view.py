# corpus: legit
# task: level2/1_LinearBiasReLU
# what: the weight's transpose is passed as a strided view (.t() on the way to the kernel), bias and ReLU fused
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, swk, swn,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rk[:, None] * swk + rn[None, :] * swn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, w, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.contiguous()
        wt = self.linear.weight.t()
        M, K = x.shape
        N = wt.shape[1]
        y = torch.empty((M, N), dtype=torch.float32, device=x.device)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        linear_relu_kernel[grid](x, wt, self.linear.bias, y, M, N, K, wt.stride(0), wt.stride(1),
                                 BM=32, BN=32, BK=32)
        return y
