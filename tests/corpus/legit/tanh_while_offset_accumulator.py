# corpus: legit
# task: level1/9_Tanh
# what: a while loop keeps an offset, off += chunk, and launches once per chunk with off and chunk as int arguments until the flat input is covered
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_span_kernel(x_ptr, y_ptr, off, count, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < count
    x = tl.load(x_ptr + off + offs, mask=m)
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    tl.store(y_ptr + off + offs, tl.where(x >= 0, t, -t), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        xf = x.contiguous().view(-1)
        y = torch.empty_like(xf)
        n = xf.numel()
        off = 0
        while off < n:
            chunk = min(640, n - off)
            tanh_span_kernel[(triton.cdiv(chunk, 128),)](xf, y, off, chunk, BLOCK=128)
            off += chunk
        return y.view(x.shape)
