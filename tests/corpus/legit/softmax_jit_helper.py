# corpus: legit
# task: level1/3_Softmax
# what: a @triton.jit device helper called from the kernel, plus a wrapper class method
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _stable_exp(x, axis: tl.constexpr):
    return tl.exp(x - tl.max(x, axis=axis))


@triton.jit
def softmax_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=m, other=-float("inf"))
    e = _stable_exp(x, 0)
    tl.store(y_ptr + row * N + cols, e / tl.sum(e, axis=0), mask=m)


class TritonSoftmax:
    def __init__(self, block_cap=8192):
        self.block_cap = block_cap

    def __call__(self, x):
        rows, n = x.shape
        y = torch.empty_like(x)
        softmax_kernel[(rows,)](x, y, n, BLOCK=triton.next_power_of_2(n))
        return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.op = TritonSoftmax()

    def forward(self, x):
        return self.op(x.contiguous())
