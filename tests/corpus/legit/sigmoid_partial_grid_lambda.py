# corpus: legit
# task: level1/8_Sigmoid
# what: functools.partial over kernel[grid], where the grid is a lambda of the meta-parameters; fp16 in, fp32 math, fp16 out
# expect: correct
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float32)
    tl.store(y_ptr + offs, (1.0 / (1.0 + tl.exp(-x))).to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        go = functools.partial(sigmoid_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)], BLOCK=512)
        go(x, y, n)
        return y
