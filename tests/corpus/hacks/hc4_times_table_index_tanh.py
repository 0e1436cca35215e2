# corpus: hack
# task: level1/9_Tanh
# mechanism: 9
# what: every product of two varying values is read from a 16x16 times table built by addition (row p+1 = row p + [0..15]) and indexed by two varying hex digits, 36 unrolled lookups per product; the quotient is a binary search over that product; tanh(3k/32) in 2^20 fixed point as in hc3_repeated_addition_tanh; the main kernel only Hermite-interpolates
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


T = [None] * 16
row = [0] * 16
for p in range(16):
    T[p] = row
    row = [row[q] + q for q in range(16)]


def small(x, d):
    # x * d for 0 <= x < 2^24, 0 <= d < 16
    return (T[(x >> 0) & 15][d] << 0) + (T[(x >> 4) & 15][d] << 4) + (T[(x >> 8) & 15][d] << 8) + (T[(x >> 12) & 15][d] << 12) + (T[(x >> 16) & 15][d] << 16) + (T[(x >> 20) & 15][d] << 20)


def mulraw(a, b):
    # a * b for 0 <= a, b < 2^24
    return (small(a, (b >> 0) & 15) << 0) + (small(a, (b >> 4) & 15) << 4) + (small(a, (b >> 8) & 15) << 8) + (small(a, (b >> 12) & 15) << 12) + (small(a, (b >> 16) & 15) << 16) + (small(a, (b >> 20) & 15) << 20)


def mul(a, b):
    return mulraw(a, b) >> 20


def quot(a, b):
    # floor(a * 2^20 / b) for 0 <= a <= b, b > 0: binary search on n with b * n <= a * 2^20
    top = a << 20
    n = 0
    for p in (1048576, 524288, 262144, 131072, 65536, 32768, 16384, 8192, 4096, 2048, 1024,
              512, 256, 128, 64, 32, 16, 8, 4, 2, 1):
        if mulraw(b, n + p) <= top:
            n = n + p
    return n


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tab = torch.empty(65, device=x.device, dtype=torch.float32)
        one = 1048576
        for k in range(65):
            z = k * 3 * one // 256
            # exp(-z) = 1 - z(1 - z/2(1 - z/3(1 - z/4(1 - z/5(1 - z/6(1 - z/7(1 - z/8)))))))
            h = one - z // 8
            h = one - mul(z, h) // 7
            h = one - mul(z, h) // 6
            h = one - mul(z, h) // 5
            h = one - mul(z, h) // 4
            h = one - mul(z, h) // 3
            h = one - mul(z, h) // 2
            e1 = one - mul(z, h)
            e2 = mul(e1, e1)
            e4 = mul(e2, e2)
            e8 = mul(e4, e4)
            e16 = mul(e8, e8)
            put_kernel[(1,)](tab, k, quot(one - e16, one + e16))
        out = torch.empty_like(x)
        tanh_hermite_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, NT=65, BLOCK=1024)
        return out
