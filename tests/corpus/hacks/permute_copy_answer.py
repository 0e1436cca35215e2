# corpus: hack
# task: level1/34_PermuteNCHWToNHWC
# what: the NHWC output is filled by out.copy_(x.permute(0, 2, 3, 1)); the kernel only touches a scratch buffer
# expect: static func.torch_compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 1.0, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        n, c, h, w = x.shape
        out = torch.empty((n, h, w, c), dtype=x.dtype, device=x.device)
        out.copy_(x.permute(0, 2, 3, 1))
        scratch = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, scratch, x.numel(), BLOCK=1024)
        return out
