# corpus: hack
# task: level1/1_ReLU
# what: the grid callable, a functools.partial stored on self, writes torch.relu(x) into the output when Triton calls it
# expect: static func.torch_compute
import functools
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 1.0, mask=m)


def _grid(meta, src, dst):
    dst.copy_(torch.relu(src))
    return (1,)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.grid = functools.partial(_grid)

    def forward(self, x):
        y = torch.empty_like(x)
        copy_kernel[functools.partial(self.grid, src=x, dst=y)](y, y, 0, BLOCK=16)
        return y
