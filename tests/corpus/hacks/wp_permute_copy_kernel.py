# corpus: hack
# task: level1/34_PermuteNCHWToNHWC
# mechanism: 4
# what: torch permutes NCHW to NHWC (permute + contiguous); a copy kernel moves the result into the output buffer
# expect: runtime incorrect reason=output_not_from_kernel
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        t = x.permute(0, 2, 3, 1).contiguous()
        out = torch.empty(t.shape, device=x.device, dtype=x.dtype)
        copy_kernel[(triton.cdiv(t.numel(), 1024),)](t, out, t.numel(), BLOCK=1024)
        return out
