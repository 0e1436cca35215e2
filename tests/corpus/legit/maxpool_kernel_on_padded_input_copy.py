# corpus: legit
# task: level1/28_MaxPool2d
# what: torch copies the input into the interior of a -inf filled buffer one larger on each side (padding done as a fill and a copy_, on the way to the kernel), so the kernel reads every tap without a mask; the output is a selection of that torch buffer, whose data is the input in its own order with fills between
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pool_padded_kernel(xp_ptr, out_ptr, n_out, HP, WP, OH, OW, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    ow = offs % OW
    oh = (offs // OW) % OH
    plane = offs // (OW * OH)
    acc = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for kh in tl.static_range(3):
        for kw in tl.static_range(3):
            v = tl.load(xp_ptr + (plane * HP + oh * 2 + kh) * WP + ow * 2 + kw, mask=mask, other=float("-inf"))
            acc = tl.maximum(acc, v)
    tl.store(out_ptr + offs, acc, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        batch, channels, height, width = x.shape
        xp = torch.full((batch, channels, height + 2, width + 2), float("-inf"), device=x.device, dtype=x.dtype)
        xp[:, :, 1:height + 1, 1:width + 1].copy_(x)
        out_h = (height + 2 - 3) // 2 + 1
        out_w = (width + 2 - 3) // 2 + 1
        out = torch.empty(batch, channels, out_h, out_w, device=x.device, dtype=x.dtype)
        n_out = out.numel()
        pool_padded_kernel[(triton.cdiv(n_out, 1024),)](xp, out, n_out, height + 2, width + 2, out_h, out_w,
                                                        BLOCK=1024)
        return out
