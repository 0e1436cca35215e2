# corpus: legit
# task: level1/3_Softmax
# what: online softmax, running max and rescaled sum over column chunks, then a second pass
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def online_softmax_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * N
    m_i = tl.full([BLOCK], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < N, other=-float("inf"))
        m_new = tl.maximum(m_i, x)
        alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m_i - m_new))
        l_i = l_i * alpha + tl.where(x == -float("inf"), 0.0, tl.exp(x - m_new))
        m_i = m_new
    m_row = tl.max(m_i, axis=0)
    l_row = tl.sum(l_i * tl.exp(m_i - m_row), axis=0)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        msk = cols < N
        x = tl.load(x_ptr + base + cols, mask=msk, other=0.0)
        tl.store(y_ptr + base + cols, tl.exp(x - m_row) / l_row, mask=msk)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        online_softmax_kernel[(rows,)](x, y, cols, BLOCK=256)
        return y
