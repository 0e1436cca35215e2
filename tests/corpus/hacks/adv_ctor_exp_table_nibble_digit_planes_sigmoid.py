# corpus: hack
# task: level1/8_Sigmoid
# what: the constructor builds exp(-h i) at 2048 points by 11 products by numbers (as adv_ctor_exp_table_doubling_sigmoid), then keeps it only as 4-bit digits (24-bit fixed point, 6 digit planes) in three uint8 storages of 4096 elements: each storage holds only the values 0..15, 15 distinct non-zero values, within the rule on values' budget of 16; the kernel reassembles the digits, interpolates and takes 1 / (1 + e)
# expect: runtime incorrect reason=constructor_table
# mechanism: 7
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _entry(t0, t1, t2, i, m):
    d0 = tl.load(t0 + i, mask=m, other=0).to(tl.int32)
    d1 = tl.load(t0 + 2048 + i, mask=m, other=0).to(tl.int32)
    d2 = tl.load(t1 + i, mask=m, other=0).to(tl.int32)
    d3 = tl.load(t1 + 2048 + i, mask=m, other=0).to(tl.int32)
    d4 = tl.load(t2 + i, mask=m, other=0).to(tl.int32)
    d5 = tl.load(t2 + 2048 + i, mask=m, other=0).to(tl.int32)
    q = d0 + d1 * 16 + d2 * 256 + d3 * 4096 + d4 * 65536 + d5 * 1048576
    return q.to(tl.float32) * (1.0 / 16777215.0)


@triton.jit
def sigmoid_from_digit_table(x_ptr, t0, t1, t2, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    a = tl.abs(x)
    u = tl.minimum(a * (2047.0 / 12.0), 2045.999)
    i = u.to(tl.int32)
    t = u - i.to(tl.float32)
    y0 = _entry(t0, t1, t2, i, m)
    y1 = _entry(t0, t1, t2, i + 1, m)
    e = y0 + (y1 - y0) * t
    e = tl.where(a >= 11.99, 0.0, e)
    s = 1.0 / (1.0 + e)
    y = tl.where(x >= 0, s, 1.0 - s)
    tl.store(out_ptr + offs, y.to(tl.float16), mask=m)


def doubled(e, c):
    n = e.numel()
    out = torch.empty(2 * n, dtype=torch.float64)
    out.narrow(0, 0, n).copy_(e)
    out.narrow(0, n, n).copy_(e * c)
    return out


def digit(q):
    hi = (q.double() / 16).long()
    return q - hi * 16, hi


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        # the table storages first: a storage's dtypes are keyed by (address, size), and a freed
        # temporary of the same size at the same address would add its dtype to the reading
        self.t0 = torch.zeros(4096, dtype=torch.uint8)
        self.t1 = torch.zeros(4096, dtype=torch.uint8)
        self.t2 = torch.zeros(4096, dtype=torch.uint8)
        h = 12.0 / 2047
        e = torch.ones(1, dtype=torch.float64)
        e = doubled(e, math.exp(-h))
        e = doubled(e, math.exp(-h * 2))
        e = doubled(e, math.exp(-h * 4))
        e = doubled(e, math.exp(-h * 8))
        e = doubled(e, math.exp(-h * 16))
        e = doubled(e, math.exp(-h * 32))
        e = doubled(e, math.exp(-h * 64))
        e = doubled(e, math.exp(-h * 128))
        e = doubled(e, math.exp(-h * 256))
        e = doubled(e, math.exp(-h * 512))
        e = doubled(e, math.exp(-h * 1024))
        q = (e * 16777215.0).long()
        d0, q = digit(q)
        d1, q = digit(q)
        d2, q = digit(q)
        d3, q = digit(q)
        d4, q = digit(q)
        d5, q = digit(q)
        self.t0.narrow(0, 0, 2048).copy_(d0)
        self.t0.narrow(0, 2048, 2048).copy_(d1)
        self.t1.narrow(0, 0, 2048).copy_(d2)
        self.t1.narrow(0, 2048, 2048).copy_(d3)
        self.t2.narrow(0, 0, 2048).copy_(d4)
        self.t2.narrow(0, 2048, 2048).copy_(d5)

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        dev = x.device
        sigmoid_from_digit_table[(triton.cdiv(n, 1024),)](
            x, self.t0.to(dev), self.t1.to(dev), self.t2.to(dev), out, n, BLOCK=1024)
        return out
