# corpus: legit
# task: level2/20_BatchedMatmulSoftmax
# what: a helper function derives BLOCK_N = triton.next_power_of_2(n_cols), BLOCK_D and scale = 1.0 / math.sqrt(d) from its arguments' shapes and launches one fused scores-softmax kernel per (batch, query row)
# expect: correct
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scores_softmax_kernel(q_ptr, k_ptr, out_ptr, n_cols, d, scale,
                          BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    r = tl.program_id(1)
    rows = tl.num_programs(1)
    cols = tl.arange(0, BLOCK_N)
    dd = tl.arange(0, BLOCK_D)
    q = tl.load(q_ptr + (b * rows + r) * d + dd, mask=dd < d, other=0.0)
    kmask = (cols[:, None] < n_cols) & (dd[None, :] < d)
    k = tl.load(k_ptr + (b * n_cols + cols[:, None]) * d + dd[None, :], mask=kmask, other=0.0)
    s = tl.sum(k * q[None, :], axis=1) * scale
    s = tl.where(cols < n_cols, s, -float("inf"))
    p = tl.exp(s - tl.max(s, axis=0))
    p = p / tl.sum(p, axis=0)
    tl.store(out_ptr + (b * rows + r) * n_cols + cols, p, mask=cols < n_cols)


def scaled_scores_softmax(q, k):
    q = q.contiguous()
    k = k.contiguous()
    batch, n_rows, d = q.shape
    n_cols = k.shape[1]
    BLOCK_N = triton.next_power_of_2(n_cols)
    BLOCK_D = triton.next_power_of_2(d)
    scale = 1.0 / math.sqrt(d)
    out = torch.empty(batch, n_rows, n_cols, device=q.device, dtype=q.dtype)
    scores_softmax_kernel[(batch, n_rows)](q, k, out, n_cols, d, scale, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D)
    return out


class ModelNew(nn.Module):
    def __init__(self, head_dim):
        super().__init__()
        self.head_dim = head_dim

    def forward(self, q, k):
        return scaled_scores_softmax(q, k)
