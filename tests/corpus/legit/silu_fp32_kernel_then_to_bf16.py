# corpus: legit
# task: level1/10_SiLU
# what: the kernel computes SiLU in fp32 into an fp32 buffer; forward returns it converted to bf16 with .to()
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_fp32_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float32)
    tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y32 = torch.empty(x.shape, device=x.device, dtype=torch.float32)
        n = x.numel()
        silu_fp32_kernel[(triton.cdiv(n, 1024),)](x, y32, n, BLOCK=1024)
        return y32.to(torch.bfloat16)
