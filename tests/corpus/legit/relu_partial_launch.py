# corpus: legit
# task: level1/1_ReLU
# what: functools.partial(kernel[grid], BLOCK=...) is the launch; forward calls the partial
# expect: correct
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        launch = functools.partial(relu_kernel[(triton.cdiv(n, 1024),)], BLOCK=1024)
        launch(x, y, n)
        return y
