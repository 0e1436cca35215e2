# corpus: legit
# task: level1/2_AddBroadcast
# what: flat 1-D kernel; the column index comes from offset modulo N
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_row_vector(a_ptr, b_ptr, out_ptr, total, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    col = offs % N
    a = tl.load(a_ptr + offs, mask=m)
    b = tl.load(b_ptr + col, mask=m)
    tl.store(out_ptr + offs, a + b, mask=m)


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        out = torch.empty_like(a)
        total = a.numel()
        N = a.size(1)
        add_row_vector[(triton.cdiv(total, 1024),)](a, b.contiguous(), out, total, N, BLOCK=1024)
        return out
