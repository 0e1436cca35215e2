# corpus: legit
# task: level1/4_RowSum
# what: a helper class is handed the kernel in its constructor and launches it from __call__
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(v, axis=0))


class RowLauncher:
    def __init__(self, kernel):
        self.kernel = kernel

    def __call__(self, x):
        M, N = x.shape
        out = torch.empty((M,), dtype=x.dtype, device=x.device)
        self.kernel[(M,)](x, out, N, BLOCK=triton.next_power_of_2(N))
        return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.launch = RowLauncher(rowsum_kernel)

    def forward(self, x):
        return self.launch(x.contiguous())
