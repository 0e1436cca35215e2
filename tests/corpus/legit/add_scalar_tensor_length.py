# corpus: legit
# task: level1/2_AddBroadcast
# what: bookkeeping scalars made with torch.tensor and torch.full: the row length is read from a 1-element tensor
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    N = tl.load(n_ptr)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    a = tl.load(a_ptr + row * N + cols, mask=m, other=0.0)
    b = tl.load(b_ptr + cols, mask=m, other=0.0)
    tl.store(c_ptr + row * N + cols, a + b, mask=m)


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, N = a.shape
        n_buf = torch.tensor([N], dtype=torch.int32, device=a.device)
        c = torch.full(a.shape, float("nan"), dtype=a.dtype, device=a.device)
        add_kernel[(M,)](a, b, c, n_buf, BLOCK=triton.next_power_of_2(N))
        return c
