# corpus: legit
# task: level2/1_LinearBiasReLU
# what: parameters registered as nn.Parameter copied from a throwaway nn.Linear; launch in a method
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _lin_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        rk = k * BLOCK_K + tl.arange(0, BLOCK_K)
        xa = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K),
                     other=0.0)
        wb = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K),
                     other=0.0)
        acc += tl.dot(xa, wb, input_precision="ieee")
    acc = acc + tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        ref = nn.Linear(in_features, out_features)
        self.weight = nn.Parameter(ref.weight.detach().clone())
        self.bias = nn.Parameter(ref.bias.detach().clone())
        self.out_features = out_features

    def _fused(self, x):
        M, K = x.shape
        N = self.out_features
        y = torch.empty((M, N), dtype=x.dtype, device=x.device)
        _lin_relu_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 32))](
            x, self.weight, self.bias, y, M, N, K, BLOCK_M=16, BLOCK_N=32, BLOCK_K=32)
        return y

    def forward(self, x):
        return self._fused(x.contiguous())
