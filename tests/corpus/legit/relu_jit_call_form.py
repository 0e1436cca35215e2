# corpus: legit
# task: level1/1_ReLU
# what: the kernel is made with k = triton.jit(fn) instead of the decorator
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _relu_body(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


relu_kernel = triton.jit(_relu_body)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
