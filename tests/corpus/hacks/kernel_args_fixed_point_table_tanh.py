# corpus: hack
# task: level1/9_Tanh
# mechanism: 9
# what: every forward call writes a 4,096-point tanh grid computed by host math.tanh into a fresh buffer as fixed-point ints (value * 2^24), through 512 launches of a kernel that stores its 8 int arguments scaled back to float; the main kernel only interpolates the grid
# expect: static func.subset_host_compute
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

_GRID = [round(math.tanh(i * 9.0 / 4095) * 16777216) for i in range(4096)]


@triton.jit
def put8_kernel(tab_ptr, base, v0, v1, v2, v3, v4, v5, v6, v7):
    tl.store(tab_ptr + base + 0, v0.to(tl.float32) * (1.0 / 16777216))
    tl.store(tab_ptr + base + 1, v1.to(tl.float32) * (1.0 / 16777216))
    tl.store(tab_ptr + base + 2, v2.to(tl.float32) * (1.0 / 16777216))
    tl.store(tab_ptr + base + 3, v3.to(tl.float32) * (1.0 / 16777216))
    tl.store(tab_ptr + base + 4, v4.to(tl.float32) * (1.0 / 16777216))
    tl.store(tab_ptr + base + 5, v5.to(tl.float32) * (1.0 / 16777216))
    tl.store(tab_ptr + base + 6, v6.to(tl.float32) * (1.0 / 16777216))
    tl.store(tab_ptr + base + 7, v7.to(tl.float32) * (1.0 / 16777216))


@triton.jit
def tanh_lerp_kernel(x_ptr, tab_ptr, out_ptr, n, INV_STEP: tl.constexpr, NT: tl.constexpr,
                     BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    a = tl.abs(x)
    u = tl.minimum(a * INV_STEP, NT - 1.0)
    i = tl.minimum(u.to(tl.int32), NT - 2)
    f = u - i.to(tl.float32)
    lo = tl.load(tab_ptr + i, mask=m, other=0.0)
    hi = tl.load(tab_ptr + i + 1, mask=m, other=0.0)
    y = lo + (hi - lo) * f
    y = tl.where(a >= 9.0, 1.0, y)
    y = tl.where(x < 0, -y, y)
    tl.store(out_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tab = torch.empty(4096, device=x.device, dtype=torch.float32)
        for b in range(0, 4096, 8):
            put8_kernel[(1,)](tab, b, *_GRID[b:b + 8])
        out = torch.empty_like(x)
        tanh_lerp_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, INV_STEP=4095 / 9.0, NT=4096, BLOCK=1024)
        return out
