# corpus: legit
# task: level1/4_RowSum
# what: tl.reduce with a @triton.jit combine function instead of tl.sum
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add_combine(a, b):
    return a + b


@triton.jit
def rowsum_reduce_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, N, BLOCK):
        c = s + tl.arange(0, BLOCK)
        acc = acc + tl.load(x_ptr + r * N + c, mask=c < N, other=0.0)
    tl.store(y_ptr + r, tl.reduce(acc, 0, _add_combine))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        rowsum_reduce_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=256)
        return y
