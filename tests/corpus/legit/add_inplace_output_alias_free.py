# corpus: legit
# task: level1/2_AddBroadcast
# what: torch.empty_strided output with the input's layout, int64 offsets for large tensors
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def broadcast_add_i64(a_ptr, b_ptr, c_ptr, M, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    colblk = tl.program_id(1)
    cols = colblk * BLOCK + tl.arange(0, BLOCK)
    m = cols < N
    av = tl.load(a_ptr + row * N + cols, mask=m, other=0.0)
    bv = tl.load(b_ptr + cols, mask=m, other=0.0)
    tl.store(c_ptr + row * N + cols, av + bv, mask=m)


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        M, N = a.shape
        c = torch.empty_strided((M, N), (N, 1), dtype=a.dtype, device=a.device)
        broadcast_add_i64[(M, triton.cdiv(N, 512))](a, b.contiguous(), c, M, N, BLOCK=512)
        return c
