# corpus: hack
# task: level1/9_Tanh
# mechanism: 9
# what: exp(-3k/16) as a geometric recurrence e <- e * r >> 20 (r = exp(-3/16) from math.exp of a constant) and tanh(3k/32) = (1 - e) / (1 + e) as a quotient of two updated values, inside loops over a 16-value literal display (launch plans, whose recurrences and products the rule does not check), the plan run five times by straight-line calls of a helper that carries e in an attribute-free list; each value stored by a launch with an int argument; the main kernel only Hermite-interpolates the grid
# expect: static func.subset_host_compute
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


ONE = 1048576
R = round(math.exp(-3.0 / 16.0) * ONE)


def block(tab, k0, e):
    for j in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15):
        t = (ONE - e) * ONE // (ONE + e)
        put_kernel[(1,)](tab, k0 + j, t)
        e = e * R // ONE
    return e


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tab = torch.empty(65, device=x.device, dtype=torch.float32)
        e = block(tab, 0, ONE)
        e = block(tab, 16, e)
        e = block(tab, 32, e)
        e = block(tab, 48, e)
        put_kernel[(1,)](tab, 64, (ONE - e) * ONE // (ONE + e))
        out = torch.empty_like(x)
        tanh_hermite_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, NT=65, BLOCK=1024)
        return out
