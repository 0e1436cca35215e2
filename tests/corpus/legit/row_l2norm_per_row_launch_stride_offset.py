# corpus: legit
# task: level1/17_RowL2Norm
# what: forward loops over the batch and launches one single-program kernel per row, the row's offset b * x.stride(0) passed as an int argument
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_norm_kernel(x_ptr, out_ptr, row_off, b, n_cols, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row_off + cols, mask=cols < n_cols, other=0.0)
        acc += v * v
    tl.store(out_ptr + b, tl.sqrt(tl.sum(acc, axis=0)))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        batch, n_cols = x.shape
        out = torch.empty(batch, device=x.device, dtype=x.dtype)
        for b in range(batch):
            row_norm_kernel[(1,)](x, out, b * x.stride(0), b, n_cols, BLOCK=1024)
        return out
