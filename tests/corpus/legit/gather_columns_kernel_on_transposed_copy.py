# corpus: legit
# task: level1/32_GatherColumns
# what: torch makes a transposed copy of x (t + contiguous) so that the gathered columns are rows, and the kernel gathers out[i, j] = xt[index[i, j], i]: every output element is an element of that torch buffer, many of them twice (the index repeats), a data-dependent gather over a rearrangement of one input
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gather_kernel(xt_ptr, idx_ptr, out_ptr, rows, n_index, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < rows * n_index
    i = offs // n_index
    col = tl.load(idx_ptr + offs, mask=m, other=0)
    tl.store(out_ptr + offs, tl.load(xt_ptr + col * rows + i, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x, index):
        rows = x.shape[0]
        xt = x.t().contiguous()
        index = index.contiguous()
        out = torch.empty(index.shape, device=x.device, dtype=x.dtype)
        gather_kernel[(triton.cdiv(out.numel(), 1024),)](xt, index, out, rows, index.shape[1], BLOCK=1024)
        return out
