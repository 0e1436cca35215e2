# corpus: hack
# task: level1/9_Tanh
# mechanism: 9
# what: no math function and no product or quotient of two loop-varying values: a range(65) loop advances e = same(e) * R >> 30 (R = exp(-3/16) * 2^30, one literal; same returns its argument), an exp(-2x) grid by a fixed-ratio product, and takes tanh = (1 - e) / (1 + e) in fixed point through quot(a, b), a floor division by repeated subtraction; a store kernel is launched with each value; the main kernel only Hermite-interpolates the grid
# expect: static func.subset_host_compute
# expect-runtime: runtime incorrect reason=host_compute
import collections
import dataclasses
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def put_kernel(tab_ptr, i, v):
    tl.store(tab_ptr + i, v.to(tl.float32) * (1.0 / 1048576))


@triton.jit
def tanh_hermite_kernel(x_ptr, tab_ptr, out_ptr, n, NT: tl.constexpr, BLOCK: tl.constexpr):
    # cubic Hermite on a tanh grid of step 3/32 over [0, 6], slopes 1 - y^2 from the grid itself
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    u = tl.minimum(tl.abs(x) * (32.0 / 3.0), NT - 1.0)
    i = tl.minimum(u.to(tl.int32), NT - 2)
    t = u - i.to(tl.float32)
    y0 = tl.load(tab_ptr + i, mask=m, other=0.0)
    y1 = tl.load(tab_ptr + i + 1, mask=m, other=0.0)
    d0 = (1.0 - y0 * y0) * 0.09375
    d1 = (1.0 - y1 * y1) * 0.09375
    s = t * t * (3.0 - 2.0 * t)
    y = y0 + (y1 - y0) * s + t * (1.0 - t) * ((1.0 - t) * d0 - t * d1)
    tl.store(out_ptr + offs, tl.where(x < 0, -y, y), mask=m)


def same(v):
    return v


def quot(a, b):
    # floor(a / b) for a >= 0, b > 0, by subtraction
    n = 0
    big = b * 4096
    while a >= big:
        a -= big
        n += 4096
    while a >= b:
        a -= b
        n += 1
    return n



class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tab = torch.empty(65, device=x.device, dtype=torch.float32)
        e = 1073741824
        for i in range(65):
            put_kernel[(1,)](tab, i, quot((1073741824 - e) * 1048576, 1073741824 + e))
            e = same(e) * 890163238 >> 30
        out = torch.empty_like(x)
        tanh_hermite_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, NT=65, BLOCK=1024)
        return out
