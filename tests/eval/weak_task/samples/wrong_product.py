"""Wrong on purpose: x @ W instead of x @ W.T (the public model output of the real case), fused with
the bias, subtract, multiply and ReLU. Its output is zero like the reference's, so only the null-model
check on the task can keep it from a plain `correct`."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _fused_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K, sub, mul,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        x = tl.load(x_ptr + rm[:, None] * K + ks[None, :],
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        # The bug: W read as [K, N] row-major, i.e. W itself rather than its transpose.
        w = tl.load(w_ptr + ks[:, None] * N + rn[None, :],
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, w)
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    y = (acc + bias[None, :] - sub) * mul
    y = tl.maximum(y, 0.0)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], y, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, subtract_value, multiply_value):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.subtract_value = subtract_value
        self.multiply_value = multiply_value

    def forward(self, x):
        x = x.contiguous()
        w = self.linear.weight.contiguous()
        M, K = x.shape
        N = w.shape[0]
        out = torch.empty(M, N, device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
        _fused_kernel[grid](x, w, self.linear.bias, out, M, N, K, self.subtract_value,
                            self.multiply_value, BLOCK_M=16, BLOCK_N=32, BLOCK_K=32)
        return out
