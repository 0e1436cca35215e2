# corpus: legit
# task: level1/33_Transpose2d
# what: torch converts the input to float64 (data a torch op wrote in the call, in the input's own order) and the kernel transposes that buffer, then a final .to(x.dtype): the output is a permutation of torch's data, but that data is only the input converted in order, so moving it is the kernel's work (the gather rule's exemption)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(src, dst, M, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < M * N
    row = offs // N
    col = offs % N
    tl.store(dst + col * M + row, tl.load(src + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        xd = x.contiguous().to(torch.float64)
        M, N = xd.shape
        out = torch.empty((N, M), device=x.device, dtype=torch.float64)
        transpose_kernel[(triton.cdiv(M * N, 1024),)](xd, out, M, N, BLOCK=1024)
        return out.to(x.dtype)
