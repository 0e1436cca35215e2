# corpus: legit
# task: level1/1_ReLU
# what: the input is converted to float64 by torch (data a torch op wrote in the call, handed to the kernel), the kernel computes ReLU into a fresh float64 buffer, and a final .to(x.dtype) converts the kernel's result: the output is not a copy of the converted input, and a conversion of a kernel's data is the kernel's
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m, other=0.0), 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        xd = x.contiguous().to(torch.float64)
        yd = torch.empty_like(xd)
        relu_kernel[(triton.cdiv(xd.numel(), 1024),)](xd, yd, xd.numel(), BLOCK=1024)
        return yd.to(x.dtype)
