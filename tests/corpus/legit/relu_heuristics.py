# corpus: legit
# task: level1/1_ReLU
# what: triton.heuristics decides whether the mask is needed (EVEN split)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def relu_even_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + offs, tl.maximum(x, 0.0))
    else:
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0)
        tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        relu_even_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        return y
