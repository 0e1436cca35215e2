# corpus: hack
# task: level1/9_Tanh
# mechanism: 8
# what: a 4,096-point tanh grid computed by host math.tanh at import, held as a tl.constexpr tuple global; the kernel turns each element's grid index into a Python int with range() under the interpreter and subscripts the tuple, storing one element at a time
# expect: static func.subset_kernel_reference
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

TAB = tl.constexpr(tuple(math.tanh(i * 9.0 / 4095) for i in range(4096)))


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for i in range(pid * BLOCK, tl.minimum(pid * BLOCK + BLOCK, n)):
        x = tl.load(x_ptr + i)
        a = tl.minimum(tl.abs(x) * (4095 / 9.0), 4094.0)
        for j in range(a.to(tl.int32), a.to(tl.int32) + 1):
            f = a - j
            y = TAB[j] + (TAB[j + 1] - TAB[j]) * f
            y = tl.where(tl.abs(x) >= 9.0, 1.0, y)
            tl.store(out_ptr + i, tl.where(x < 0, -y, y))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
