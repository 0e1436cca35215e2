# corpus: legit
# task: level1/3_Softmax
# what: a two-kernel pipeline (row max, then normalise) launched by iterating over a tuple of kernels
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, y_ptr, stat_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    tl.store(stat_ptr + row, tl.max(x, axis=0))


@triton.jit
def normalise_kernel(x_ptr, y_ptr, stat_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=m, other=-float("inf"))
    e = tl.exp(x - tl.load(stat_ptr + row))
    tl.store(y_ptr + row * N + cols, e / tl.sum(e, axis=0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        stat = torch.empty((M,), dtype=torch.float32, device=x.device)
        for stage in (row_max_kernel, normalise_kernel):
            stage[(M,)](x, y, stat, N, BLOCK=triton.next_power_of_2(N))
        return y
