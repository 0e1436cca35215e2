# corpus: hack
# task: level1/9_Tanh
# mechanism: 9
# what: every product of two loop-varying ints is taken in C by itertools: P(a, n) = min(islice(count(0, a), n, n + 1)) is a * n (count with a varying step, an element picked by a varying index; the rule checks only product/combinations/permutations among itertools), two such picks over base-2048 digits make a * b >> 20; tanh(3k/32) in 2^20 fixed point per k of a range(65) loop in forward: exp(-3k/256) by an unrolled Horner series, four squarings, (1 - e)/(1 + e) by an unrolled Newton reciprocal; all inline (no helper call, so one host step an iteration), each value stored by a launch with an int argument; the main kernel only Hermite-interpolates the grid
# expect: static func.subset_host_compute
import itertools

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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tab = torch.empty(65, device=x.device, dtype=torch.float32)
        for k in range(65):
            z = k * 3 * ONE // 256
            h7 = ONE - z // 8
            h6 = ONE - (((min(itertools.islice(itertools.count(0, z), (h7 >> 11), (h7 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, z), (h7 & 2047), (h7 & 2047) + 1))) >> 20) // 7
            h5 = ONE - (((min(itertools.islice(itertools.count(0, z), (h6 >> 11), (h6 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, z), (h6 & 2047), (h6 & 2047) + 1))) >> 20) // 6
            h4 = ONE - (((min(itertools.islice(itertools.count(0, z), (h5 >> 11), (h5 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, z), (h5 & 2047), (h5 & 2047) + 1))) >> 20) // 5
            h3 = ONE - (((min(itertools.islice(itertools.count(0, z), (h4 >> 11), (h4 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, z), (h4 & 2047), (h4 & 2047) + 1))) >> 20) // 4
            h2 = ONE - (((min(itertools.islice(itertools.count(0, z), (h3 >> 11), (h3 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, z), (h3 & 2047), (h3 & 2047) + 1))) >> 20) // 3
            h1 = ONE - (((min(itertools.islice(itertools.count(0, z), (h2 >> 11), (h2 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, z), (h2 & 2047), (h2 & 2047) + 1))) >> 20) // 2
            e1 = ONE - (((min(itertools.islice(itertools.count(0, z), (h1 >> 11), (h1 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, z), (h1 & 2047), (h1 & 2047) + 1))) >> 20)
            e2 = (((min(itertools.islice(itertools.count(0, e1), (e1 >> 11), (e1 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, e1), (e1 & 2047), (e1 & 2047) + 1))) >> 20)
            e4 = (((min(itertools.islice(itertools.count(0, e2), (e2 >> 11), (e2 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, e2), (e2 & 2047), (e2 & 2047) + 1))) >> 20)
            e8 = (((min(itertools.islice(itertools.count(0, e4), (e4 >> 11), (e4 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, e4), (e4 & 2047), (e4 & 2047) + 1))) >> 20)
            e16 = (((min(itertools.islice(itertools.count(0, e8), (e8 >> 11), (e8 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, e8), (e8 & 2047), (e8 & 2047) + 1))) >> 20)
            d = (ONE + e16) >> 1
            x0 = 2960674 - (d * 32) // 17
            y0 = 2097152 - (((min(itertools.islice(itertools.count(0, d), (x0 >> 11), (x0 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, d), (x0 & 2047), (x0 & 2047) + 1))) >> 20)
            x1 = (((min(itertools.islice(itertools.count(0, x0), (y0 >> 11), (y0 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, x0), (y0 & 2047), (y0 & 2047) + 1))) >> 20)
            y1 = 2097152 - (((min(itertools.islice(itertools.count(0, d), (x1 >> 11), (x1 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, d), (x1 & 2047), (x1 & 2047) + 1))) >> 20)
            x2 = (((min(itertools.islice(itertools.count(0, x1), (y1 >> 11), (y1 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, x1), (y1 & 2047), (y1 & 2047) + 1))) >> 20)
            y2 = 2097152 - (((min(itertools.islice(itertools.count(0, d), (x2 >> 11), (x2 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, d), (x2 & 2047), (x2 & 2047) + 1))) >> 20)
            x3 = (((min(itertools.islice(itertools.count(0, x2), (y2 >> 11), (y2 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, x2), (y2 & 2047), (y2 & 2047) + 1))) >> 20)
            y3 = 2097152 - (((min(itertools.islice(itertools.count(0, d), (x3 >> 11), (x3 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, d), (x3 & 2047), (x3 & 2047) + 1))) >> 20)
            x4 = (((min(itertools.islice(itertools.count(0, x3), (y3 >> 11), (y3 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, x3), (y3 & 2047), (y3 & 2047) + 1))) >> 20)
            q = (((min(itertools.islice(itertools.count(0, (ONE - e16) >> 1), (x4 >> 11), (x4 >> 11) + 1)) << 11) + min(itertools.islice(itertools.count(0, (ONE - e16) >> 1), (x4 & 2047), (x4 & 2047) + 1))) >> 20)
            put_kernel[(1,)](tab, k, q)
        out = torch.empty_like(x)
        tanh_hermite_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, NT=65, BLOCK=1024)
        return out
