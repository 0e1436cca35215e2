# corpus: legit
# task: level1/3_Softmax
# what: the @triton.jit kernel is defined in the ModelNew class body and launched as self.kernel[grid]
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    @triton.jit
    def kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        m = cols < N
        x = tl.load(x_ptr + row * N + cols, mask=m, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + row * N + cols, e / tl.sum(e, axis=0), mask=m)

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        self.kernel[(M,)](x, y, N, BLOCK=triton.next_power_of_2(N))
        return y
