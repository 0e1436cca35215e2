"""Triton solution: 1-D convolution as an implicit GEMM (weights [C_out, C_in*K] times an on-the-fly im2col tile) with tl.dot."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _conv1d_kernel(x_ptr, w_ptr, bias_ptr, out_ptr, C_in, L, C_out, L_out, KS,
                   BLOCK_CO: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_R: tl.constexpr):
    # Implicit GEMM: out[co, l] = sum_r w[co, r] * x[ci, l + k] with r = (ci, k).
    n = tl.program_id(0).to(tl.int64)
    co = tl.program_id(1) * BLOCK_CO + tl.arange(0, BLOCK_CO)
    pos = tl.program_id(2) * BLOCK_L + tl.arange(0, BLOCK_L)
    co_mask = co < C_out
    pos_mask = pos < L_out
    R = C_in * KS
    x_base = x_ptr + n * C_in * L
    acc = tl.zeros([BLOCK_CO, BLOCK_L], dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        r = r0 + tl.arange(0, BLOCK_R)
        r_mask = r < R
        x_off = (r // KS)[:, None] * L + (r % KS)[:, None] + pos[None, :]
        x = tl.load(x_base + x_off, mask=r_mask[:, None] & pos_mask[None, :], other=0.0)
        w = tl.load(w_ptr + co[:, None] * R + r[None, :],
                    mask=co_mask[:, None] & r_mask[None, :], other=0.0)
        acc += tl.dot(w, x)
    acc += tl.load(bias_ptr + co, mask=co_mask, other=0.0)[:, None]
    out = out_ptr + n * C_out * L_out + co[:, None] * L_out + pos[None, :]
    tl.store(out, acc, mask=co_mask[:, None] & pos_mask[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        x = x.contiguous()
        weight = self.conv.weight.contiguous()
        batch, c_in, length = x.shape
        c_out, _, ks = weight.shape
        l_out = length - ks + 1
        out = torch.empty(batch, c_out, l_out, device=x.device, dtype=x.dtype)
        BLOCK_CO, BLOCK_L = 64, 64
        grid = (batch, triton.cdiv(c_out, BLOCK_CO), triton.cdiv(l_out, BLOCK_L))
        _conv1d_kernel[grid](x, weight, self.conv.bias, out, c_in, length, c_out, l_out, ks,
                             BLOCK_CO=BLOCK_CO, BLOCK_L=BLOCK_L, BLOCK_R=32)
        return out
