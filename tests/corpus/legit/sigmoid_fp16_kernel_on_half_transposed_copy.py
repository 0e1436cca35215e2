# corpus: legit
# task: level1/8_Sigmoid
# what: torch makes a transposed copy of the left half of the fp16 input's columns (on the way to the kernel) and the kernel computes the sigmoid in fp32 reading that half from it and the other half from the input, storing fp16: torch's buffer is a strict part of the input, so no exemption covers it, and at the fp16 tolerance (1e-2) a tolerance cell holds several fp16 values, so the tolerant reading of the mixing rule meets its coarsest grid here
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sigmoid_halves_kernel(x_ptr, left_t_ptr, out_ptr, R, C, H, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < R * C
    r = offs // C
    c = offs % C
    left = c < H
    v = tl.where(left, tl.load(left_t_ptr + c * R + r, mask=m & left, other=0.0),
                 tl.load(x_ptr + offs, mask=m & ~left, other=0.0)).to(tl.float32)
    y = 1.0 / (1.0 + tl.exp(-v))
    tl.store(out_ptr + offs, y.to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        H = C // 2
        left_t = x[:, :H].t().contiguous()
        out = torch.empty_like(x)
        sigmoid_halves_kernel[(triton.cdiv(R * C, 1024),)](x, left_t, out, R, C, H, BLOCK=1024)
        return out
