"""Triton solution: 3x3 stride-2 max pooling with padding 1; one lane per output element, padded taps read as -inf."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _max_pool_kernel(x_ptr, out_ptr, n_out, H, W, OH, OW, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    ow = offs % OW
    oh = (offs // OW) % OH
    plane = offs // (OW * OH)  # flattened (sample, channel)
    base = x_ptr + plane * H * W
    acc = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for kh in tl.static_range(3):
        ih = oh * 2 - 1 + kh
        for kw in tl.static_range(3):
            iw = ow * 2 - 1 + kw
            inside = mask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            acc = tl.maximum(acc, tl.load(base + ih * W + iw, mask=inside, other=float("-inf")))
    tl.store(out_ptr + offs, acc, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        batch, channels, height, width = x.shape
        out_h = (height + 2 - 3) // 2 + 1
        out_w = (width + 2 - 3) // 2 + 1
        out = torch.empty(batch, channels, out_h, out_w, device=x.device, dtype=x.dtype)
        n_out = out.numel()
        BLOCK = 1024
        _max_pool_kernel[(triton.cdiv(n_out, BLOCK),)](x, out, n_out, height, width, out_h, out_w,
                                                       BLOCK=BLOCK)
        return out
