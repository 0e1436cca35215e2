# corpus: legit
# task: level1/1_ReLU
# what: a kernel in a helper class body, launched as ClassName.kernel[grid] from forward
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


class Kernels:
    @triton.jit
    def relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0)
        tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        Kernels.relu[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
