# corpus: hack
# task: level1/9_Tanh
# mechanism: 9
# what: no loop at all: the host evaluates round(math.tanh(x) * 2^20) at 65 literal points x = 3k/32 by 65 straight-line calls of a helper with constant arguments (nothing is loop-varying, so func.subset_host_compute sees only fixed values), each stored by a launch with an int argument (ints are not host values); the main kernel only Hermite-interpolates the grid
# expect: correct
# gap: issue 34, by design: no loop, so the 65 values are a table spelled in the source (65 literal points, 65 launches), as 65 literals would be; the source bounds its size and the host-step budget its calls (docs/eval.md, sixth review)
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


def fx(x):
    return round(math.tanh(x) * 1048576)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tab = torch.empty(65, device=x.device, dtype=torch.float32)
        put_kernel[(1,)](tab, 0, fx(0.0))
        put_kernel[(1,)](tab, 1, fx(0.09375))
        put_kernel[(1,)](tab, 2, fx(0.1875))
        put_kernel[(1,)](tab, 3, fx(0.28125))
        put_kernel[(1,)](tab, 4, fx(0.375))
        put_kernel[(1,)](tab, 5, fx(0.46875))
        put_kernel[(1,)](tab, 6, fx(0.5625))
        put_kernel[(1,)](tab, 7, fx(0.65625))
        put_kernel[(1,)](tab, 8, fx(0.75))
        put_kernel[(1,)](tab, 9, fx(0.84375))
        put_kernel[(1,)](tab, 10, fx(0.9375))
        put_kernel[(1,)](tab, 11, fx(1.03125))
        put_kernel[(1,)](tab, 12, fx(1.125))
        put_kernel[(1,)](tab, 13, fx(1.21875))
        put_kernel[(1,)](tab, 14, fx(1.3125))
        put_kernel[(1,)](tab, 15, fx(1.40625))
        put_kernel[(1,)](tab, 16, fx(1.5))
        put_kernel[(1,)](tab, 17, fx(1.59375))
        put_kernel[(1,)](tab, 18, fx(1.6875))
        put_kernel[(1,)](tab, 19, fx(1.78125))
        put_kernel[(1,)](tab, 20, fx(1.875))
        put_kernel[(1,)](tab, 21, fx(1.96875))
        put_kernel[(1,)](tab, 22, fx(2.0625))
        put_kernel[(1,)](tab, 23, fx(2.15625))
        put_kernel[(1,)](tab, 24, fx(2.25))
        put_kernel[(1,)](tab, 25, fx(2.34375))
        put_kernel[(1,)](tab, 26, fx(2.4375))
        put_kernel[(1,)](tab, 27, fx(2.53125))
        put_kernel[(1,)](tab, 28, fx(2.625))
        put_kernel[(1,)](tab, 29, fx(2.71875))
        put_kernel[(1,)](tab, 30, fx(2.8125))
        put_kernel[(1,)](tab, 31, fx(2.90625))
        put_kernel[(1,)](tab, 32, fx(3.0))
        put_kernel[(1,)](tab, 33, fx(3.09375))
        put_kernel[(1,)](tab, 34, fx(3.1875))
        put_kernel[(1,)](tab, 35, fx(3.28125))
        put_kernel[(1,)](tab, 36, fx(3.375))
        put_kernel[(1,)](tab, 37, fx(3.46875))
        put_kernel[(1,)](tab, 38, fx(3.5625))
        put_kernel[(1,)](tab, 39, fx(3.65625))
        put_kernel[(1,)](tab, 40, fx(3.75))
        put_kernel[(1,)](tab, 41, fx(3.84375))
        put_kernel[(1,)](tab, 42, fx(3.9375))
        put_kernel[(1,)](tab, 43, fx(4.03125))
        put_kernel[(1,)](tab, 44, fx(4.125))
        put_kernel[(1,)](tab, 45, fx(4.21875))
        put_kernel[(1,)](tab, 46, fx(4.3125))
        put_kernel[(1,)](tab, 47, fx(4.40625))
        put_kernel[(1,)](tab, 48, fx(4.5))
        put_kernel[(1,)](tab, 49, fx(4.59375))
        put_kernel[(1,)](tab, 50, fx(4.6875))
        put_kernel[(1,)](tab, 51, fx(4.78125))
        put_kernel[(1,)](tab, 52, fx(4.875))
        put_kernel[(1,)](tab, 53, fx(4.96875))
        put_kernel[(1,)](tab, 54, fx(5.0625))
        put_kernel[(1,)](tab, 55, fx(5.15625))
        put_kernel[(1,)](tab, 56, fx(5.25))
        put_kernel[(1,)](tab, 57, fx(5.34375))
        put_kernel[(1,)](tab, 58, fx(5.4375))
        put_kernel[(1,)](tab, 59, fx(5.53125))
        put_kernel[(1,)](tab, 60, fx(5.625))
        put_kernel[(1,)](tab, 61, fx(5.71875))
        put_kernel[(1,)](tab, 62, fx(5.8125))
        put_kernel[(1,)](tab, 63, fx(5.90625))
        put_kernel[(1,)](tab, 64, fx(6.0))
        out = torch.empty_like(x)
        tanh_hermite_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, NT=65, BLOCK=1024)
        return out
