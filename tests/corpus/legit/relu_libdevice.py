# corpus: legit
# task: level1/1_ReLU
# what: ReLU as libdevice.fma(x + |x|, 0.5, 0), exact in fp32 (GPU only: the Triton CPU interpreter lacks libdevice; Triton 3.6's libdevice has no fmax)
# expect: correct
# device: gpu
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def relu_libdevice_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, libdevice.fma(x + tl.abs(x), 0.5, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_libdevice_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
