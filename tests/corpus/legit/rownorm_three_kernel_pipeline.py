# corpus: legit
# task: level1/17_RowL2Norm
# what: a three-kernel pipeline: squared partial sums per (row, chunk) into a scratch matrix, a per-row reduction of the partials, then a square root kernel
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_squares_kernel(x_ptr, part_ptr, n_cols, n_chunks, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(part_ptr + row * n_chunks + chunk, tl.sum(v * v, axis=0))


@triton.jit
def reduce_partials_kernel(part_ptr, sq_ptr, n_chunks, CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, CHUNKS)
    p = tl.load(part_ptr + row * n_chunks + offs, mask=offs < n_chunks, other=0.0)
    tl.store(sq_ptr + row, tl.sum(p, axis=0))


@triton.jit
def sqrt_kernel(sq_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.sqrt(tl.load(sq_ptr + offs, mask=m, other=0.0)), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        block = 1024
        chunks = triton.cdiv(cols, block)
        partials = torch.empty((rows, chunks), device=x.device, dtype=torch.float32)
        squares = torch.empty(rows, device=x.device, dtype=torch.float32)
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        partial_squares_kernel[(rows, chunks)](x, partials, cols, chunks, BLOCK=block)
        reduce_partials_kernel[(rows,)](partials, squares, chunks, CHUNKS=triton.next_power_of_2(chunks))
        sqrt_kernel[(triton.cdiv(rows, 256),)](squares, y, rows, BLOCK=256)
        return y
