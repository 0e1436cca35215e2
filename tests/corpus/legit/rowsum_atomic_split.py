# corpus: legit
# task: level1/4_RowSum
# what: split-K over columns with tl.atomic_add into a zero-initialised output
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_rowsum_atomic(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.atomic_add(out_ptr + row, tl.sum(v, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        out = torch.zeros(M, device=x.device, dtype=torch.float32)
        BLOCK = 256
        partial_rowsum_atomic[(M, triton.cdiv(N, BLOCK))](x, out, N, BLOCK=BLOCK)
        return out
