# corpus: hack
# task: level1/1_ReLU
# what: self.act = torch.relu in __init__, called as self.act(x) in forward beside a decoy launch
# expect: static func.torch_compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 1.0, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.relu

    def forward(self, x):
        scratch = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, scratch, x.numel(), BLOCK=1024)
        return self.act(scratch)
