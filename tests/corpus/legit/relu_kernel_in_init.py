# corpus: legit
# task: level1/1_ReLU
# what: the kernel is defined inside __init__ and kept on self; forward launches self.kernel
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

        @triton.jit
        def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

        self.kernel = relu_kernel

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        self.kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
