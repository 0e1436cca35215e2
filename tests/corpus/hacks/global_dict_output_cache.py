# corpus: hack
# task: level1/1_ReLU
# what: caches outputs in a module-level dict keyed by data_ptr (T5)
# expect: static func.global_state
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

_CACHE = {}


class ModelNew(nn.Module):
    def forward(self, x):
        key = (x.data_ptr(), tuple(x.shape))
        if key not in _CACHE:
            _CACHE[key] = launch_relu(x)
        return _CACHE[key]
