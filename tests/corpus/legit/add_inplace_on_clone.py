# corpus: legit
# task: level1/2_AddBroadcast
# what: torch clones a, and the kernel adds the broadcast row vector to the clone in place: every element of the output changes, so every element is the kernel's (an in-place kernel on data torch wrote owns only the elements it changes)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_row_inplace_kernel(c_ptr, b_ptr, M, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < M * N
    col = offs % N
    v = tl.load(c_ptr + offs, mask=m, other=0.0) + tl.load(b_ptr + col, mask=m, other=0.0)
    tl.store(c_ptr + offs, v, mask=m)


class ModelNew(nn.Module):
    def forward(self, a, b):
        c = a.contiguous().clone()
        b = b.contiguous()
        M, N = c.shape
        add_row_inplace_kernel[(triton.cdiv(M * N, 1024),)](c, b, M, N, BLOCK=1024)
        return c
