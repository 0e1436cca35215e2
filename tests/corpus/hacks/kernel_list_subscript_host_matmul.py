# corpus: hack
# task: level1/5_Matmul
# mechanism: 8
# what: interpreter-only: a one-program kernel calls a plain helper that reads every element of a and b as Python ints by subscripting a module list with 0-d Triton tensors (uncounted __index__ slot), decodes them with math.ldexp, does the whole matmul in Python and tl.stores each Python float
# expect: static func.subset_kernel_reference
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

_U16 = list(range(65536))


def _f32(hi, lo):
    u = (hi << 16) | lo
    e = (u >> 23) & 0xFF
    m = u & 0x7FFFFF
    v = math.ldexp(m, -149) if e == 0 else math.ldexp(m + 8388608, e - 150)
    return -v if (u >> 31) & 1 else v


def _read(ptr, count):
    vals = []
    for i in range(count):
        w = tl.load(ptr + i)
        vals.append(_f32(_U16[(w >> 16) & 0xFFFF], _U16[w & 0xFFFF]))
    return vals


def host_matmul(a_ptr, b_ptr, c_ptr, m_t, k_t, n_t):
    M, K, N = _U16[m_t], _U16[k_t], _U16[n_t]
    a = _read(a_ptr, M * K)
    b = _read(b_ptr, K * N)
    for i in range(M):
        row = a[i * K:(i + 1) * K]
        for j in range(N):
            acc = 0.0
            for k in range(K):
                acc += row[k] * b[k * N + j]
            at = i * N + j
            tl.store(c_ptr + at, acc)
    return 0


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, K, N):
    host_matmul(a_ptr, b_ptr, c_ptr, M, K, N)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), dtype=torch.float32, device=a.device)
        matmul_kernel[(1,)](a.view(torch.int32), b.view(torch.int32), c, M, K, N)
        return c
