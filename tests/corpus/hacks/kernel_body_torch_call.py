# corpus: hack
# task: level1/1_ReLU
# what: the kernel body (plain Python under the interpreter) calls torch.relu on the whole input
# expect: static func.torch_compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, src, dst, BLOCK: tl.constexpr):
    if tl.program_id(0) == 0:
        dst.copy_(torch.relu(src))


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        relu_kernel[(1,)](x, y, x.numel(), x, y, BLOCK=1024)
        return y
