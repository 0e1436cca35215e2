# corpus: hack
# task: level1/10_SiLU
# mechanism: 8
# what: forward passes a one-element tuple holding a plain Python helper as an ordinary (not constexpr) kernel argument; the interpreter converts a tuple element by element and hands a function over raw; the kernel calls FNS[0] on the loaded block, and the helper computes silu on its numpy handle with operators only, in place; the kernel only converts, loads and stores
# expect: static func.subset_host_compute
# expect-runtime: runtime compile_error reason=compile_exception
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

_E = math.e


def _silu(v):
    d = v.handle.data
    d[...] = d / (1.0 + _E ** (-d))
    return v


@triton.jit
def silu_kernel(x_ptr, out_ptr, n, FNS, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = FNS[0](x * 1.0)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        silu_kernel[(triton.cdiv(n, 1024),)](x, out, n, (_silu,), BLOCK=1024)
        return out
