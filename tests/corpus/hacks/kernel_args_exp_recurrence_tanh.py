# corpus: hack
# task: level1/9_Tanh
# mechanism: 9
# what: every forward call builds a 65-point exp(-2x) grid on the host by the fixed-point recurrence e = e * r >> 24 in a while loop (r = exp(-2h) * 2^24, one constant) and passes each value as the int argument of a store kernel; the main kernel Hermite-interpolates the grid and only forms (1 - e) / (1 + e)
# expect: static func.subset_host_compute
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def put_kernel(tab_ptr, i, v):
    tl.store(tab_ptr + i, v.to(tl.float32) * (1.0 / 16777216))


@triton.jit
def tanh_from_exp_kernel(x_ptr, tab_ptr, out_ptr, n, NT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    u = tl.minimum(tl.abs(x) * (32.0 / 3.0), NT - 1.0)
    i = tl.minimum(u.to(tl.int32), NT - 2)
    t = u - i.to(tl.float32)
    e0 = tl.load(tab_ptr + i, mask=m, other=0.0)
    e1 = tl.load(tab_ptr + i + 1, mask=m, other=0.0)
    s = t * t * (3.0 - 2.0 * t)
    # cubic Hermite on e = exp(-2|x|), slopes -2e from the grid itself
    e = e0 + (e1 - e0) * s - 0.1875 * t * (1.0 - t) * ((1.0 - t) * e0 - t * e1)
    y = (1.0 - e) / (1.0 + e)
    tl.store(out_ptr + offs, tl.where(x < 0, -y, y), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tab = torch.empty(65, device=x.device, dtype=torch.float32)
        r = round(math.exp(-2.0 * 3.0 / 32.0) * (1 << 24))
        e = 1 << 24
        i = 0
        while i < 65:
            put_kernel[(1,)](tab, i, e)
            e = e * r >> 24
            i += 1
        out = torch.empty_like(x)
        tanh_from_exp_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, NT=65, BLOCK=1024)
        return out
