# corpus: legit
# task: level1/1_ReLU
# what: a module-level wrapper function between forward and the launch
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(in_ptr, out_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < numel
    val = tl.load(in_ptr + offs, mask=m, other=0.0)
    zero = tl.zeros_like(val)
    tl.store(out_ptr + offs, tl.maximum(val, zero), mask=m)


def triton_relu(x: torch.Tensor, block: int = 512) -> torch.Tensor:
    assert x.is_contiguous()
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    numel = x.numel()
    relu_kernel[(triton.cdiv(numel, block),)](x, out, numel, BLOCK=block)
    return out


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super(ModelNew, self).__init__()

    def forward(self, x):
        return triton_relu(x.contiguous())
