# corpus: legit
# task: level1/4_RowSum
# what: a @staticmethod @triton.jit kernel in the class body, launched through self
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    @staticmethod
    @triton.jit
    def rowsum_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, N, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        tl.store(out_ptr + row, tl.sum(acc, axis=0))

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty((M,), dtype=x.dtype, device=x.device)
        self.rowsum_kernel[(M,)](x, out, N, BLOCK=128)
        return out
