"""Triton solution: one RMS-norm kernel per row with the scale fused."""
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
def _row_norm_kernel(x_ptr, pre_ptr, w_ptr, b_ptr, post_ptr, y_ptr, N, eps,
                     KIND: tl.constexpr, HAS_PRE: tl.constexpr, HAS_W: tl.constexpr,
                     HAS_B: tl.constexpr, HAS_POST: tl.constexpr, ACT: tl.constexpr,
                     BLOCK: tl.constexpr):
    # y = act(norm(x [+ pre]) * w + b) [+ post]; KIND 0 layer norm, 1 RMS norm, 2 L2 normalize
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    if HAS_PRE:
        x += tl.load(pre_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    if KIND == 0:
        mean = tl.sum(x, axis=0) / N
        d = tl.where(mask, x - mean, 0.0)
        y = d / tl.sqrt(tl.sum(d * d, axis=0) / N + eps)
    elif KIND == 1:
        y = x / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    else:
        y = x / tl.maximum(tl.sqrt(tl.sum(x * x, axis=0)), eps)
    if HAS_W:
        y = y * tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    if HAS_B:
        y += tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = _act(y, ACT, 0.0)
    if HAS_POST:
        y += tl.load(post_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * N + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def row_norm(x, kind, weight=None, bias=None, eps=1e-5, pre=None, post=None, act=0):
    """Normalise each row of the contiguous last dim of x (see _row_norm_kernel)."""
    N = x.shape[-1]
    y = torch.empty_like(x)
    rows = x.numel() // N
    _row_norm_kernel[(rows,)](x, pre if pre is not None else x, weight if weight is not None else x,
                              bias if bias is not None else x, post if post is not None else x, y,
                              N, float(eps), KIND=kind, HAS_PRE=pre is not None,
                              HAS_W=weight is not None, HAS_B=bias is not None,
                              HAS_POST=post is not None, ACT=act,
                              BLOCK=triton.next_power_of_2(N))
    return y



class ModelNew(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)

    def forward(self, x):
        return row_norm(x, 1, self.weight, eps=self.eps)
