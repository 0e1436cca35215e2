# corpus: hack
# task: level1/9_Tanh
# mechanism: 7 9
# what: hc3_repeated_addition_tanh's table moved into the constructor (no host-step budget there, and int launch arguments are no host values): no math function, no product, quotient or shift of two loop-varying values and no non-additive recurrence: for each k of a range(65) loop the host evaluates exp(-3k/256) by an unrolled alternating Horner series, squares it four times (exp(-3k/16) = exp(-2x), x = 3k/32) and takes tanh = (1 - e) / (1 + e) in 2^20 fixed point; every product of two varying values is mul(a, b), repeated addition of a over the base-128 digits of b (loops of varying trip count), the quotient is quot(a, b), long division by repeated subtraction; a store kernel is launched with each value; the main kernel only Hermite-interpolates the grid
# expect: static func.subset_host_compute
# expect-runtime: runtime incorrect reason=host_compute
# expect-runtime-gpu: runtime runtime_error reason=exception
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


def mul(a, b):
    # a * b >> 20 for 0 <= b < 2^21: add a once per unit of each base-128 digit of b
    d2 = b >> 14
    d1 = (b >> 7) - (d2 << 7)
    d0 = b - ((b >> 7) << 7)
    acc = 0
    for _ in range(d2):
        acc += a
    acc = acc << 7
    for _ in range(d1):
        acc += a
    acc = acc << 7
    for _ in range(d0):
        acc += a
    return acc >> 20


def quot(a, b):
    # floor(a * 2^20 / b) for 0 <= a <= b, b > 0: long division by repeated subtraction
    a = a << 20
    n = 0
    b14 = b << 14
    while a >= b14:
        a -= b14
        n += 16384
    b7 = b << 7
    while a >= b7:
        a -= b7
        n += 128
    while a >= b:
        a -= b
        n += 1
    return n


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        tab = torch.empty(65, dtype=torch.float32)
        one = 1048576
        for k in range(65):
            z = k * 3 * one // 256
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
        self.tab = tab

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tab = self.tab.to(x.device)
        out = torch.empty_like(x)
        tanh_hermite_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, NT=65, BLOCK=1024)
        return out
