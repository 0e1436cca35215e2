# corpus: hack
# task: level2/1_LinearBiasReLU
# mechanism: 8
# what: the nn.Linear is kept as in the reference; the kernel loads x, W and the bias tiles and hands them to a plain Python helper passed as a tl.constexpr argument, which computes relu(x @ W^T + b) with numpy broadcasting and builtin sum on the tl.tensors' .handle.data (no call) into the accumulator; the kernel only stores it
# expect: static func.subset_host_compute
# expect-runtime: runtime compile_error reason=compile_exception
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _linear_relu_into(acc, x, w, bias):
    y = sum(x.handle.data.T[:, :, None] * w.handle.data.T[:, None, :]) + bias.handle.data
    acc.handle.data[...] = y * (y > 0)
    return acc


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K, FN: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    x = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    w = tl.load(w_ptr + rn[:, None] * K + rk[None, :], mask=(rn[:, None] < N) & (rk[None, :] < K), other=0.0)
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    acc = FN(acc, x, w, bias)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.linear.weight.shape[0]
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        BM, BN = 32, 32
        BK = triton.next_power_of_2(K)
        linear_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
            x, self.linear.weight, self.linear.bias, out, M, N, K, FN=_linear_relu_into, BM=BM, BN=BN, BK=BK)
        return out
