# corpus: legit
# task: level1/4_RowSum
# what: two-stage reduction, per-chunk partial sums to a scratch buffer, then a second kernel
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def stage1_kernel(x_ptr, part_ptr, N, NUM_CHUNKS, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(part_ptr + row * NUM_CHUNKS + chunk, tl.sum(v, axis=0))


@triton.jit
def stage2_kernel(part_ptr, out_ptr, NUM_CHUNKS, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK_C)
    p = tl.load(part_ptr + row * NUM_CHUNKS + c, mask=c < NUM_CHUNKS, other=0.0)
    tl.store(out_ptr + row, tl.sum(p, axis=0))


def two_stage_rowsum(x, block=256):
    M, N = x.shape
    chunks = triton.cdiv(N, block)
    partial = torch.empty((M, chunks), device=x.device, dtype=torch.float32)
    out = torch.empty((M,), device=x.device, dtype=x.dtype)
    stage1_kernel[(M, chunks)](x, partial, N, chunks, BLOCK=block)
    stage2_kernel[(M,)](partial, out, chunks, BLOCK_C=triton.next_power_of_2(chunks))
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        return two_stage_rowsum(x.contiguous())
