# corpus: legit
# task: level2/1_LinearBiasReLU
# what: flattens leading dims with view/reshape so any batch shape works, fused epilogue
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_relu_rows(x_ptr, w_ptr, b_ptr, y_ptr, N, K, BN: tl.constexpr, BK: tl.constexpr):
    row = tl.program_id(0)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BN,), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        xv = tl.load(x_ptr + row * K + rk, mask=rk < K, other=0.0)
        w = tl.load(w_ptr + rn[:, None] * K + rk[None, :], mask=(rn[:, None] < N) & (rk[None, :] < K),
                    other=0.0)
        acc += tl.sum(w * xv[None, :], axis=1)
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    tl.store(y_ptr + row * N + rn, tl.maximum(acc, 0.0), mask=rn < N)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        lead = x.shape[:-1]
        K = x.shape[-1]
        x2 = x.reshape(-1, K).contiguous()
        rows = x2.shape[0]
        N = self.linear.weight.shape[0]
        y = torch.empty((rows, N), device=x.device, dtype=x.dtype)
        linear_relu_rows[(rows, triton.cdiv(N, 64))](x2, self.linear.weight, self.linear.bias, y, N, K,
                                                     BN=64, BK=64)
        return y.view(*lead, N)
