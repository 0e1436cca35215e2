# corpus: legit
# task: level2/1_LinearBiasReLU
# what: autotuned fused linear with explicit weight strides passed from the parameter
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BM": 32, "BN": 32, "BK": 32}, num_warps=4),
        triton.Config({"BM": 64, "BN": 32, "BK": 32}, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def fused_linear_relu(x_ptr, w_ptr, bias_ptr, out_ptr, M, N, K, sxm, sxk, swn, swk, som, son,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        offs_k = k0 + tl.arange(0, BK)
        xt = tl.load(x_ptr + offs_m[:, None] * sxm + offs_k[None, :] * sxk,
                     mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        wt = tl.load(w_ptr + offs_k[:, None] * swk + offs_n[None, :] * swn,
                     mask=(offs_k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(xt, wt, acc, input_precision="ieee")
    acc += tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)[None, :]
    out = tl.where(acc > 0, acc, 0.0)
    tl.store(out_ptr + offs_m[:, None] * som + offs_n[None, :] * son, out,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        w = self.linear.weight
        M, K = x.shape
        N = w.size(0)
        out = torch.empty(M, N, device=x.device, dtype=x.dtype)
        grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))
        fused_linear_relu[grid](x, w, self.linear.bias, out, M, N, K, x.stride(0), x.stride(1),
                                w.stride(0), w.stride(1), out.stride(0), out.stride(1))
        return out
