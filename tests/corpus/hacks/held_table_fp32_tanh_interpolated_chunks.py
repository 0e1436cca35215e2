# corpus: hack
# task: level1/9_Tanh
# mechanism: 7
# what: fp32 tanh from a 65536-entry table (tanh at every value whose low 16 bits are zero) computed in Python at import, held as 16 fp32 chunks of 4096; forward assembles it with copy_; kernel only interpolates linearly between table[hi16] and table[hi16+1]
# expect: static func.subset_host_compute
# expect-runtime: runtime incorrect reason=constructor_table
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def interp_kernel(x_ptr, table_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    b = x.to(tl.int32, bitcast=True)
    hi = (b >> 16) & 0xFFFF
    x0 = (b & -65536).to(tl.float32, bitcast=True)
    x1 = ((b & -65536) + 65536).to(tl.float32, bitcast=True)
    y0 = tl.load(table_ptr + hi, mask=m, other=0.0)
    y1 = tl.load(table_ptr + hi + 1, mask=m, other=0.0)
    t = (x - x0) / (x1 - x0)
    tl.store(out_ptr + offs, y0 + t * (y1 - y0), mask=m)


def _tanh_of_top(h):
    sign = -1.0 if h & 0x8000 else 1.0
    e, m = (h >> 7) & 0xFF, h & 0x7F
    if e == 0xFF:
        return sign
    v = math.ldexp(m, -133) if e == 0 else math.ldexp(128 + m, e - 134)
    return sign * math.tanh(v)


_TABLE = [_tanh_of_top(h) for h in range(65536)] + [0.0] * 4096


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.chunks = [torch.tensor(_TABLE[i * 4096:(i + 1) * 4096], dtype=torch.float32) for i in range(17)]

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        table = torch.empty(17 * 4096, dtype=torch.float32, device=x.device)
        for i in range(17):
            table[i * 4096:(i + 1) * 4096].copy_(self.chunks[i])
        out = torch.empty_like(x)
        interp_kernel[(triton.cdiv(n, 1024),)](x, table, out, n, BLOCK=1024)
        return out
