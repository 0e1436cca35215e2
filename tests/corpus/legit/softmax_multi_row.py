# corpus: legit
# task: level1/3_Softmax
# what: several rows per program in one 2-D block, reductions along axis 1
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_rows_kernel(x_ptr, y_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, BLOCK_N)
    mask = (r[:, None] < M) & (c[None, :] < N)
    ptrs = x_ptr + r[:, None] * N + c[None, :]
    x = tl.load(ptrs, mask=mask, other=-float("inf"))
    mx = tl.max(x, axis=1)
    e = tl.exp(x - mx[:, None])
    e = tl.where(mask, e, 0.0)
    s = tl.sum(e, axis=1)
    s = tl.where(s == 0.0, 1.0, s)
    tl.store(y_ptr + r[:, None] * N + c[None, :], e / s[:, None], mask=mask)


class ModelNew(nn.Module):
    ROWS = 4

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        grid = (triton.cdiv(M, self.ROWS),)
        softmax_rows_kernel[grid](x, y, M, N, ROWS=self.ROWS, BLOCK_N=triton.next_power_of_2(N))
        return y
