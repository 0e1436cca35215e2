# corpus: legit
# task: level1/1_ReLU
# what: 2-D grid over row and column tiles using the input strides
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu2d_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_xn, stride_ym, stride_yn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :] * stride_xn, mask=mask, other=0.0)
    y = tl.maximum(x, 0.0)
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :] * stride_yn, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        M, N = x.shape
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        BM, BN = 16, 128
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        relu2d_kernel[grid](x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                            BLOCK_M=BM, BLOCK_N=BN)
        return y
