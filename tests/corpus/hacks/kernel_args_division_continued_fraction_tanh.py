# corpus: hack
# task: level1/9_Tanh
# mechanism: 9
# what: no math module and no product of two loop-varying values: tanh(3i/32) by Lambert's continued fraction 1/(1/x + 1/(3/x + 1/(5/x + ...))) in fixed point, using only floor division by the loop index and by the running denominator, every forward call; each value is the int argument of a store kernel launch and the main kernel only Hermite-interpolates the grid
# expect: static func.subset_host_compute
# expect-runtime: runtime incorrect reason=host_compute
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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tab = torch.empty(65, device=x.device, dtype=torch.float32)
        put_kernel[(1,)](tab, 0, 0)
        for i in range(1, 65):
            # (2k + 1) / x in fixed point 2^20 is (2k + 1) * 32 * 2^20 // (3i)
            d = 61 * 33554432 // (3 * i)
            for k in range(29, -1, -1):
                d = (2 * k + 1) * 33554432 // (3 * i) + 1099511627776 // d
            put_kernel[(1,)](tab, i, 1099511627776 // d)
        out = torch.empty_like(x)
        tanh_hermite_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, NT=65, BLOCK=1024)
        return out
