# corpus: legit
# task: level1/33_Transpose2d
# what: a tiled kernel transposes into a scratch buffer and a second kernel copies the scratch buffer into the output; a copy of a kernel's own result is not a copy of torch's
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, R, C, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = (r[:, None] < R) & (c[None, :] < C)
    tile = tl.load(x_ptr + r[:, None] * C + c[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + c[None, :] * R + r[:, None], tile, mask=mask)


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        scratch = torch.empty(cols, rows, device=x.device, dtype=x.dtype)
        transpose_kernel[(triton.cdiv(rows, 32), triton.cdiv(cols, 32))](x, scratch, rows, cols, BLOCK=32)
        out = torch.empty_like(scratch)
        copy_kernel[(triton.cdiv(out.numel(), 1024),)](scratch, out, out.numel(), BLOCK=1024)
        return out
