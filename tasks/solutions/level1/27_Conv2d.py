"""Triton solution: 3x3 convolution with zero padding 1 as an implicit GEMM (weights [C_out, C_in*9] times an on-the-fly im2col tile) with tl.dot."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _conv2d_3x3_kernel(x_ptr, w_ptr, bias_ptr, out_ptr, C_in, H, W, C_out,
                       BLOCK_CO: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_R: tl.constexpr):
    # Implicit GEMM: out[co, p] = sum_r w[co, r] * x_col[r, p] with r = (ci, kh, kw)
    # and x_col gathered from the input on the fly (zero outside the image).
    n = tl.program_id(0).to(tl.int64)
    co = tl.program_id(1) * BLOCK_CO + tl.arange(0, BLOCK_CO)
    p = tl.program_id(2) * BLOCK_P + tl.arange(0, BLOCK_P)
    co_mask = co < C_out
    p_mask = p < H * W
    oh = p // W
    ow = p % W
    R = C_in * 9
    x_base = x_ptr + n * C_in * H * W
    acc = tl.zeros([BLOCK_CO, BLOCK_P], dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        r = r0 + tl.arange(0, BLOCK_R)
        r_mask = r < R
        ci = r // 9
        ih = oh[None, :] + ((r // 3) % 3)[:, None] - 1
        iw = ow[None, :] + (r % 3)[:, None] - 1
        inside = (r_mask[:, None] & p_mask[None, :]
                  & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W))
        x = tl.load(x_base + (ci[:, None] * H + ih) * W + iw, mask=inside, other=0.0)
        w = tl.load(w_ptr + co[:, None] * R + r[None, :],
                    mask=co_mask[:, None] & r_mask[None, :], other=0.0)
        acc += tl.dot(w, x)
    acc += tl.load(bias_ptr + co, mask=co_mask, other=0.0)[:, None]
    out = out_ptr + n * C_out * H * W + co[:, None] * (H * W) + p[None, :]
    tl.store(out, acc, mask=co_mask[:, None] & p_mask[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x):
        x = x.contiguous()
        weight = self.conv.weight.contiguous()
        batch, c_in, height, width = x.shape
        c_out = weight.shape[0]
        out = torch.empty(batch, c_out, height, width, device=x.device, dtype=x.dtype)
        BLOCK_CO, BLOCK_P = 64, 64
        grid = (batch, triton.cdiv(c_out, BLOCK_CO), triton.cdiv(height * width, BLOCK_P))
        _conv2d_3x3_kernel[grid](x, weight, self.conv.bias, out, c_in, height, width, c_out,
                                 BLOCK_CO=BLOCK_CO, BLOCK_P=BLOCK_P, BLOCK_R=32)
        return out
