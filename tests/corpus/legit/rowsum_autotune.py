# corpus: legit
# task: level1/4_RowSum
# what: autotuned chunk width and warps for a looped row reduction
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_N": 128}, num_warps=2),
        triton.Config({"BLOCK_N": 512}, num_warps=4),
        triton.Config({"BLOCK_N": 2048}, num_warps=8),
    ],
    key=["N"],
)
@triton.jit
def sum_rows(x_ptr, out_ptr, N, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    total = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        idx = off + tl.arange(0, BLOCK_N)
        total += tl.load(x_ptr + pid * N + idx, mask=idx < N, other=0.0).to(tl.float32)
    tl.store(out_ptr + pid, tl.sum(total, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty((M,), dtype=x.dtype, device=x.device)
        sum_rows[(M,)](x, out, N)
        return out
