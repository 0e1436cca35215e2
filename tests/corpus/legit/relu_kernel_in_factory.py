# corpus: legit
# task: level1/1_ReLU
# what: the kernel is defined inside a factory function that returns it; forward launches what the factory made
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


def make_relu_kernel():
    @triton.jit
    def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

    return relu_kernel


_relu = make_relu_kernel()


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _relu[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
