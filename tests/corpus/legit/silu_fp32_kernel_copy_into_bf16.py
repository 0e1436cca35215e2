# corpus: legit
# task: level1/10_SiLU
# what: the kernel computes SiLU into an fp32 buffer; forward converts it into a bf16 output with copy_
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float32)
    tl.store(y_ptr + offs, x / (1.0 + tl.exp(-x)), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        acc = torch.empty(x.shape, device=x.device, dtype=torch.float32)
        n = x.numel()
        silu_kernel[(triton.cdiv(n, 1024),)](x, acc, n, BLOCK=1024)
        out = torch.empty_like(x)
        out.copy_(acc)
        return out
