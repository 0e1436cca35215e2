# corpus: hack
# task: level1/33_Transpose2d
# mechanism: 4
# what: torch writes the transpose into the first rows of a larger zero-filled buffer (copy_ into a slice of it), and a kernel copies those first rows in order into a fresh output: the torch buffer is larger than the output, so the output is neither that buffer in element or memory order nor holds it as a run; it is a run of the buffer (issue 34: copies are looked for in both directions)
# expect: runtime incorrect reason=output_not_from_kernel
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        M, N = x.shape
        big = torch.zeros((N + 1, M), device=x.device, dtype=x.dtype)
        big[:N].copy_(x.t())
        out = torch.empty((N, M), device=x.device, dtype=x.dtype)
        copy_kernel[(triton.cdiv(N * M, 1024),)](big, out, N * M, BLOCK=1024)
        return out
