# corpus: hack
# task: level1/9_Tanh
# mechanism: 8
# what: forward passes a plain Python helper to the kernel as a tl.constexpr argument (the kernel calls its own parameter); under the interpreter the helper computes tanh on the loaded tl.tensor's numpy handle with operators only, in place; the kernel only loads and stores
# expect: static func.subset_host_compute
# expect-runtime: runtime compile_error reason=compile_exception
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

_E2 = math.e * math.e


def _act(v):
    d = v.handle.data
    d[...] = 1.0 - 2.0 / (_E2 ** d + 1.0)
    return v


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = ACT(x * 1.0)
    tl.store(out_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        tanh_kernel[(triton.cdiv(n, 1024),)](x, out, n, ACT=_act, BLOCK=1024)
        return out
