# corpus: legit
# task: level1/1_ReLU
# what: autotuned block size keyed on the element count, grid as a lambda over meta
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 256}, num_warps=2),
        triton.Config({"BLOCK": 1024}, num_warps=4),
        triton.Config({"BLOCK": 4096}, num_warps=8),
    ],
    key=["n"],
)
@triton.jit
def _relu_fwd(src, dst, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    idx = start + tl.arange(0, BLOCK)
    keep = idx < n
    v = tl.load(src + idx, mask=keep, other=0.0)
    tl.store(dst + idx, tl.where(v > 0, v, 0.0), mask=keep)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        src = x.contiguous()
        out = torch.empty_like(src)
        n = src.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
        _relu_fwd[grid](src, out, n)
        return out
