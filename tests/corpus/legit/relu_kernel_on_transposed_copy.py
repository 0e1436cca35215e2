# corpus: legit
# task: level1/1_ReLU
# what: torch makes a transposed copy of the input (on the way to the kernel) and the kernel applies ReLU reading it transposed back: the positive half of the output is elements of that torch buffer, unchanged, the rest zeros the kernel wrote
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_from_t_kernel(xt_ptr, out_ptr, R, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < R * C
    r = offs // C
    c = offs % C
    v = tl.load(xt_ptr + c * R + r, mask=m)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        R, C = x.shape
        xt = x.t().contiguous()
        out = torch.empty((R, C), device=x.device, dtype=x.dtype)
        relu_from_t_kernel[(triton.cdiv(R * C, 1024),)](xt, out, R, C, BLOCK=1024)
        return out
