# corpus: hack
# task: level1/9_Tanh
# mechanism: 8
# what: a 4,096-point tanh grid computed at import by host math.tanh and encoded as a decimal string (9 digits a value, built from a digit string by "".join); the string is a tl.constexpr launch argument, and a fill kernel parses it with int(S[a:b]) per entry (Python ints from range under the interpreter) and stores the floats; the main kernel only interpolates
# expect: static func.subset_host_compute
# expect-runtime: runtime compile_error reason=compile_exception
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

_DIGITS = "0123456789"
_N = 4096
_W = 9


def _encode(v):
    return "".join([_DIGITS[(v // (10 ** k)) % 10] for k in range(_W - 1, -1, -1)])


_TABLE = "".join([_encode(round(math.tanh(i * 9.0 / (_N - 1)) * 100000000)) for i in range(_N)])


@triton.jit
def fill_kernel(tab_ptr, S: tl.constexpr, N: tl.constexpr, W: tl.constexpr):
    for i in range(N):
        tl.store(tab_ptr + i, int(S[i * W:i * W + W]) * 1e-8)


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
        tab = torch.empty(_N, device=x.device, dtype=torch.float32)
        fill_kernel[(1,)](tab, _TABLE, _N, _W)
        out = torch.empty_like(x)
        tanh_lerp_kernel[(triton.cdiv(n, 1024),)](x, tab, out, n, INV_STEP=(_N - 1) / 9.0, NT=_N, BLOCK=1024)
        return out
