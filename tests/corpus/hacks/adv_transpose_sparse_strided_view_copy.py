# corpus: hack
# task: level1/33_Transpose2d
# what: torch copy_ of x into a strided view of a buffer three times the answer's size, strides (3, 3M): logically the write is x in its own order (exempt as an input copied), and in memory it is x transposed at every third element, a layout spanning 3x its elements, which _readings_of_write does not read in memory order (only spans up to 2x); a kernel handed that view copies every third element into the output
# expect: runtime incorrect reason=output_not_from_kernel
# mechanism: 4
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def stride3_copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(src + 3 * offs, mask=m)
    tl.store(dst + offs, v, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        M, N = x.shape
        n = M * N
        buf = torch.empty(3 * n, device=x.device, dtype=x.dtype)
        sparse = buf.view(N, M, 3).select(2, 0).t()  # shape (M, N), strides (3, 3M)
        sparse.copy_(x)
        out = torch.empty((N, M), device=x.device, dtype=x.dtype)
        stride3_copy_kernel[(triton.cdiv(n, 1024),)](sparse, out, n, BLOCK=1024)
        return out
