# corpus: legit
# task: level1/2_AddBroadcast
# what: kernels kept in a module-level dict and looked up by name (the op chosen in __init__)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, M, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    a = tl.load(a_ptr + row * N + cols, mask=m, other=0.0)
    b = tl.load(b_ptr + cols, mask=m, other=0.0)
    tl.store(c_ptr + row * N + cols, a + b, mask=m)


@triton.jit
def sub_kernel(a_ptr, b_ptr, c_ptr, M, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    a = tl.load(a_ptr + row * N + cols, mask=m, other=0.0)
    b = tl.load(b_ptr + cols, mask=m, other=0.0)
    tl.store(c_ptr + row * N + cols, a - b, mask=m)


KERNELS = {"add": add_kernel, "sub": sub_kernel}


class ModelNew(nn.Module):
    def __init__(self, op="add"):
        super().__init__()
        self.op = op

    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, N = a.shape
        c = torch.empty_like(a)
        KERNELS[self.op][(M,)](a, b, c, M, N, BLOCK=triton.next_power_of_2(N))
        return c
