"""Triton solution: one program per (sample, group) computes the statistics and writes norm + swish."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _act(y, ACT: tl.constexpr, slope):
    # 0 none, 1 relu, 2 gelu (erf), 3 gelu (tanh), 4 sigmoid, 5 silu, 6 tanh, 7 leaky relu
    if ACT == 1:
        y = tl.maximum(y, 0.0)
    elif ACT == 2:
        y = 0.5 * y * (1.0 + tl.erf(y * 0.7071067811865476))
    elif ACT == 3:
        u = 0.7978845608028654 * (y + 0.044715 * y * y * y)
        y = 0.5 * y * (1.0 + (2.0 / (1.0 + tl.exp(-2.0 * u)) - 1.0))
    elif ACT == 4:
        y = 1.0 / (1.0 + tl.exp(-y))
    elif ACT == 5:
        y = y / (1.0 + tl.exp(-y))
    elif ACT == 6:
        y = 2.0 / (1.0 + tl.exp(-2.0 * y)) - 1.0
    elif ACT == 7:
        y = tl.where(y >= 0.0, y, y * slope)
    return y


@triton.jit
def _group_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, HW, G, eps, ACT: tl.constexpr,
                       BLOCK: tl.constexpr):
    # one program per (sample, group): two-pass mean/variance, then affine + activation
    pid = tl.program_id(0)
    n = pid // G
    g = pid % G
    cpg = C // G
    size = cpg * HW
    base = (n * C + g * cpg) * HW
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, size, BLOCK):
        i = start + offs
        acc += tl.load(x_ptr + base + i, mask=i < size, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / size
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, size, BLOCK):
        i = start + offs
        v = tl.load(x_ptr + base + i, mask=i < size, other=0.0).to(tl.float32)
        d = tl.where(i < size, v - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / size + eps)
    for start in range(0, size, BLOCK):
        i = start + offs
        ok = i < size
        c = g * cpg + i // HW
        v = tl.load(x_ptr + base + i, mask=ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=ok, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + c, mask=ok, other=0.0).to(tl.float32)
        y = _act((v - mean) * rstd * w + b, ACT, 0.0)
        tl.store(y_ptr + base + i, y.to(y_ptr.dtype.element_ty), mask=ok)


def group_norm(x, gn, act=0):
    NB, C = x.shape[0], x.shape[1]
    HW = x.numel() // (NB * C)
    y = torch.empty_like(x)
    _group_norm_kernel[(NB * gn.num_groups,)](x, gn.weight, gn.bias, y, C, HW, gn.num_groups,
                                               float(gn.eps), ACT=act, BLOCK=1024)
    return y



class ModelNew(nn.Module):
    def __init__(self, channels, groups):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return group_norm(x, self.norm, act=5)
