"""Triton solution: 3x3 stride-1 average pooling with zero padding 1 counted in the divisor (always 9)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _avg_pool_kernel(x_ptr, out_ptr, n, H, W, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    w_idx = offs % W
    h_idx = (offs // W) % H
    base = x_ptr + (offs // (W * H)) * H * W
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for kh in tl.static_range(3):
        ih = h_idx - 1 + kh
        for kw in tl.static_range(3):
            iw = w_idx - 1 + kw
            inside = mask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            acc += tl.load(base + ih * W + iw, mask=inside, other=0.0)
    tl.store(out_ptr + offs, acc / 9.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        batch, channels, height, width = x.shape
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        _avg_pool_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, height, width, BLOCK=BLOCK)
        return out
