# corpus: legit
# task: level1/3_Softmax
# what: two kernels, row statistics (max, sum of exp) into small buffers, then normalisation
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_stats_kernel(x_ptr, max_ptr, sum_ptr, N, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + r * N + c, mask=c < N, other=-float("inf"))
    mx = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - mx), axis=0)
    tl.store(max_ptr + r, mx)
    tl.store(sum_ptr + r, s)


@triton.jit
def normalize_kernel(x_ptr, max_ptr, sum_ptr, y_ptr, N, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < N
    x = tl.load(x_ptr + r * N + c, mask=m, other=0.0)
    mx = tl.load(max_ptr + r)
    s = tl.load(sum_ptr + r)
    tl.store(y_ptr + r * N + c, tl.exp(x - mx) / s, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, N = x.shape
        row_max = torch.empty(R, device=x.device, dtype=torch.float32)
        row_sum = torch.empty(R, device=x.device, dtype=torch.float32)
        y = torch.empty_like(x)
        row_stats_kernel[(R,)](x, row_max, row_sum, N, BLOCK=triton.next_power_of_2(N))
        normalize_kernel[(R, triton.cdiv(N, 128))](x, row_max, row_sum, y, N, BLOCK=128)
        return y
