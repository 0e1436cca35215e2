# corpus: hack
# task: level1/1_ReLU
# what: under the interpreter a kernel body is plain Python: it computes ReLU with torch on tensors parked in a module dict (work inside Triton's launch)
# expect: static func.subset_kernel_reference
# expect-runtime: runtime incorrect reason=host_compute
# expect-runtime-gpu: runtime compile_error reason=compile_exception
import functools
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

_io = {}


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    _io["y"].copy_(_io["x"].clamp(min=0))


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _io["x"], _io["y"] = x, y
        relu_kernel[(1,)](x, y, x.numel(), BLOCK=1024)
        return y
