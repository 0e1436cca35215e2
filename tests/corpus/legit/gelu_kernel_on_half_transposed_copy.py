# corpus: legit
# task: level1/6_GELUTanh
# what: torch makes a transposed copy of the left half of the input's columns (on the way to the kernel) and the kernel computes GELU (tanh form) reading that half from it and the other half from the input: torch's buffer is a strict part of the input, so no exemption covers it, and GELU(x) is within the tolerance of x for x above about 3.6 (a few percent of these inputs), which a tolerant reading of the mixing rule sees as copies; they are a minority of the output, so it passes
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_halves_kernel(x_ptr, left_t_ptr, out_ptr, R, C, H, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < R * C
    r = offs // C
    c = offs % C
    left = c < H
    v = tl.where(left, tl.load(left_t_ptr + c * R + r, mask=m & left, other=0.0),
                 tl.load(x_ptr + offs, mask=m & ~left, other=0.0))
    z = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    e = tl.exp(-2.0 * tl.abs(z))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(z >= 0, t, -t)
    tl.store(out_ptr + offs, 0.5 * v * (1.0 + t), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        H = C // 2
        left_t = x[:, :H].t().contiguous()
        out = torch.empty_like(x)
        gelu_halves_kernel[(triton.cdiv(R * C, 1024),)](x, left_t, out, R, C, H, BLOCK=1024)
        return out
