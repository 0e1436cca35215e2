# corpus: legit
# task: level1/2_AddBroadcast
# what: a dict of kernels keyed by dtype is kept on self and indexed in forward
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_rows_kernel(a_ptr, b_ptr, c_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    a = tl.load(a_ptr + row * N + cols, mask=m, other=0.0)
    b = tl.load(b_ptr + cols, mask=m, other=0.0)
    tl.store(c_ptr + row * N + cols, a + b, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernels = {torch.float32: add_rows_kernel, torch.float16: add_rows_kernel}

    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, N = a.shape
        c = torch.empty_like(a)
        self.kernels[a.dtype][(M,)](a, b, c, N, BLOCK=triton.next_power_of_2(N))
        return c
