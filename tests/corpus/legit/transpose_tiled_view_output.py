# corpus: legit
# task: level1/33_Transpose2d
# what: tiled transpose kernel writing a flat buffer that is returned as a view of the right shape
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=m)
    tl.store(y_ptr + rn[None, :] * M + rm[:, None], tile, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        flat = torch.empty(M * N, device=x.device, dtype=x.dtype)
        transpose_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](x, flat, M, N, BM=32, BN=32)
        return flat.view(N, M)
