# corpus: legit
# task: level1/33_Transpose2d
# what: torch copies the input into the top-left corner of a zero buffer rounded up to whole 32x32 tiles (on the way to the kernel), so the kernel loads tiles without masks and transposes them; the output is every input element, taken from a torch buffer larger than it that holds the input in its own order
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def transpose_tiles_kernel(xp_ptr, out_ptr, M, N, NP, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    tile = tl.load(xp_ptr + r[:, None] * NP + c[None, :])
    mask = (r[:, None] < M) & (c[None, :] < N)
    tl.store(out_ptr + c[None, :] * M + r[:, None], tile, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        M, N = x.shape
        MP, NP = triton.cdiv(M, 32) * 32, triton.cdiv(N, 32) * 32
        xp = torch.zeros((MP, NP), device=x.device, dtype=x.dtype)
        xp[:M, :N].copy_(x)
        out = torch.empty((N, M), device=x.device, dtype=x.dtype)
        transpose_tiles_kernel[(MP // 32, NP // 32)](xp, out, M, N, NP, BLOCK=32)
        return out
