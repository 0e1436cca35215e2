# corpus: hack
# task: level1/1_ReLU
# what: torch.compile generates the Triton code instead of the model (B7)
# expect: static func.torch_compile
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


def launch_relu(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y

@torch.compile
def _fused(x):
    return x * (x > 0)


class ModelNew(nn.Module):
    def forward(self, x):
        launch_relu(x[:1])
        return _fused(x)
