# corpus: hack
# task: level1/9_Tanh
# mechanism: 8
# what: interpreter-only: kernel turns each loaded fp32 element's two 16-bit halves into Python ints by subscripting a module-level list with the 0-d Triton tensor (__index__ slot called from C: no CALL event, uncounted), decodes with math.ldexp and stores math.tanh of it
# expect: static func.subset_kernel_reference
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

_U16 = list(range(65536))


def tanh_of_halves(hi, lo):
    u = (hi << 16) | lo
    e = (u >> 23) & 0xFF
    m = u & 0x7FFFFF
    v = math.ldexp(m, -149) if e == 0 else math.ldexp(m + 8388608, e - 150)
    if (u >> 31) & 1:
        v = -v
    return math.tanh(v)


@triton.jit
def tanh_kernel(bits_ptr, out_ptr, n):
    pid = tl.program_id(0)
    w = tl.load(bits_ptr + pid)
    tl.store(out_ptr + pid, tanh_of_halves(_U16[(w >> 16) & 0xFFFF], _U16[w & 0xFFFF]))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        flat = x.contiguous().view(-1)
        n = flat.numel()
        out = torch.empty_like(flat)
        tanh_kernel[(n,)](flat.view(torch.int32), out, n)
        return out.view(x.shape)
