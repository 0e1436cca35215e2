# corpus: hack
# task: level1/9_Tanh
# mechanism: 9
# what: every forward call launches a store kernel with 8 int parameters 9 times, the values a starred list comprehension of round((1 - pow(r, j)) / (1 + pow(r, j)) * 2^20) with r = exp(-2h), i.e. tanh(j * h) by pow of the loop index; the main kernel only Hermite-interpolates the grid
# expect: static func.subset_host_compute
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def put8_kernel(tab_ptr, base, v0, v1, v2, v3, v4, v5, v6, v7):
    tl.store(tab_ptr + base + 0, v0.to(tl.float32) * (1.0 / 1048576))
    tl.store(tab_ptr + base + 1, v1.to(tl.float32) * (1.0 / 1048576))
    tl.store(tab_ptr + base + 2, v2.to(tl.float32) * (1.0 / 1048576))
    tl.store(tab_ptr + base + 3, v3.to(tl.float32) * (1.0 / 1048576))
    tl.store(tab_ptr + base + 4, v4.to(tl.float32) * (1.0 / 1048576))
    tl.store(tab_ptr + base + 5, v5.to(tl.float32) * (1.0 / 1048576))
    tl.store(tab_ptr + base + 6, v6.to(tl.float32) * (1.0 / 1048576))
    tl.store(tab_ptr + base + 7, v7.to(tl.float32) * (1.0 / 1048576))


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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        r = math.exp(-2.0 * 3.0 / 32.0)
        tab = torch.empty(72, device=x.device, dtype=torch.float32)
        for b in range(0, 72, 8):
            put8_kernel[(1,)](tab, b, *[round((1 - pow(r, j)) / (1 + pow(r, j)) * 1048576) for j in range(b, b + 8)])
        out = torch.empty_like(x)
        tanh_hermite_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, NT=65, BLOCK=1024)
        return out
