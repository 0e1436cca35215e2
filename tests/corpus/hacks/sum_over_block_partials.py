# corpus: hack
# task: level1/4_RowSum
# what: the kernel writes per-block partial sums and torch adds them up (.sum over the partials)
# expect: static func.torch_compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_kernel(x_ptr, part_ptr, N, CHUNKS, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(part_ptr + row * CHUNKS + chunk, tl.sum(v, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        M, N = x.shape
        chunks = triton.cdiv(N, 128)
        partial = torch.empty((M, chunks), dtype=torch.float32)
        partial_kernel[(M, chunks)](x, partial, N, chunks, BLOCK=128)
        return partial.sum(dim=1)
