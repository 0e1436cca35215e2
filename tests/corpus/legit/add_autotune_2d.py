# corpus: legit
# task: level1/2_AddBroadcast
# what: autotuned 2-D tile shapes keyed on M and N, grid lambda over two meta sizes
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BM": 16, "BN": 128}, num_warps=4),
        triton.Config({"BM": 64, "BN": 64}, num_warps=4),
    ],
    key=["M", "N"],
)
@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    m2 = (rows[:, None] < M) & (cols[None, :] < N)
    idx = rows[:, None] * N + cols[None, :]
    a = tl.load(a_ptr + idx, mask=m2, other=0.0)
    b = tl.load(b_ptr + cols, mask=cols < N, other=0.0)
    tl.store(c_ptr + idx, a + b[None, :], mask=m2)


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, N = a.shape
        c = torch.empty((M, N), dtype=a.dtype, device=a.device)

        def grid(meta):
            return (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))

        add_kernel[grid](a, b, c, M, N)
        return c
