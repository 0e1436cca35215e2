# corpus: legit
# task: level2/1_LinearBiasReLU
# what: a generic fused-linear kernel with a constexpr activation switch and optional bias
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused_linear(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, HAS_BIAS: tl.constexpr, ACT: tl.constexpr,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K),
                    other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K),
                    other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    if HAS_BIAS:
        acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if ACT == "relu":
        acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def linear_act(x, weight, bias, act="relu"):
    M, K = x.shape
    N = weight.shape[0]
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    fused_linear[(triton.cdiv(M, 32), triton.cdiv(N, 32))](
        x, weight, bias if bias is not None else x, y, M, N, K,
        HAS_BIAS=bias is not None, ACT=act, BM=32, BN=32, BK=32)
    return y


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return linear_act(x.contiguous(), self.linear.weight, self.linear.bias)
