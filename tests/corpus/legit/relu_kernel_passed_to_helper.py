# corpus: legit
# task: level1/1_ReLU
# what: forward hands the kernel to a generic elementwise helper that launches whatever kernel it is given
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


def run_elementwise(kernel, x, block=256):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK=block)
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        return run_elementwise(relu_kernel, x)
