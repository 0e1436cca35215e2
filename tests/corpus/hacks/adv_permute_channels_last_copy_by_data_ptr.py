# corpus: hack
# task: level1/34_PermuteNCHWToNHWC
# what: x.contiguous(memory_format=torch.channels_last) is logically x in its own order (exempt as an input copy) while its memory is exactly the NHWC answer; a kernel given its address copies that memory linearly into the output
# expect: runtime incorrect reason=output_not_from_kernel
# mechanism: 4
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_addr, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    src = src_addr.to(tl.pointer_type(tl.float32))
    v = tl.load(src + offs, mask=m)
    tl.store(dst + offs, v, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        B, C, H, W = x.shape
        nhwc = x.contiguous(memory_format=torch.channels_last)
        out = torch.empty((B, H, W, C), device=x.device, dtype=x.dtype)
        n = out.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](nhwc.data_ptr(), out, n, BLOCK=1024)
        return out
