# corpus: legit
# task: level1/1_ReLU
# what: the kernel is a static method of a class nested in ModelNew's body
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    class Kernels:
        @staticmethod
        @triton.jit
        def relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            m = offs < n
            tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        ModelNew.Kernels.relu[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
