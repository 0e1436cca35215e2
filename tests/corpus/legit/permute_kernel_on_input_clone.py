# corpus: legit
# task: level1/34_PermuteNCHWToNHWC
# what: torch clones the input (an in-order copy) and the kernel permutes the clone NCHW to NHWC: the output is a permutation of torch's data, which is only the input copied in order, so it is the kernel's (the gather rule's exemption)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def nchw_to_nhwc_kernel(src, dst, C, HW, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    b = offs // (C * HW)
    rest = offs % (C * HW)
    c = rest // HW
    p = rest % HW
    tl.store(dst + b * (C * HW) + p * C + c, tl.load(src + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        xc = x.clone()
        B, C, H, W = xc.shape
        out = torch.empty((B, H, W, C), device=x.device, dtype=x.dtype)
        nchw_to_nhwc_kernel[(triton.cdiv(xc.numel(), 1024),)](xc, out, C, H * W, xc.numel(), BLOCK=1024)
        return out
