# corpus: legit
# task: level1/4_RowSum
# what: BLOCK_M rows per program, 2-D tile reduced along axis 1
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_tile_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for k in range(0, N, BLOCK_N):
        cols = k + tl.arange(0, BLOCK_N)
        tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :],
                       mask=(rows[:, None] < M) & (cols[None, :] < N), other=0.0)
        acc += tl.sum(tile, axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < M)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.block_m = 8
        self.block_n = 128

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = x.new_empty((M,))
        rowsum_tile_kernel[(triton.cdiv(M, self.block_m),)](x, y, M, N, BLOCK_M=self.block_m,
                                                            BLOCK_N=self.block_n)
        return y
