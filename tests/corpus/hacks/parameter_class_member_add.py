# corpus: hack
# task: level1/2_AddBroadcast
# what: nn.Parameter.add(a, b): a torch op reached as a member of nn.Parameter
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
    def forward(self, a, b):
        scratch = torch.empty_like(a)
        copy_kernel[(triton.cdiv(a.numel(), 1024),)](a, scratch, a.numel(), BLOCK=1024)
        return nn.Parameter.add(scratch, b)
