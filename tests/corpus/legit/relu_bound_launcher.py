# corpus: legit
# task: level1/1_ReLU
# what: the kernel indexed by its grid is bound to a variable and launched through it (launch = k[grid])
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


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        launch = relu_kernel[(triton.cdiv(n, 512),)]
        launch(x, y, n, BLOCK=512)
        return y
