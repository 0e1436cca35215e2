"""Triton solution: inference batch norm, elementwise with the channel of each element = (offset // HW) % C."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _batch_norm_kernel(x_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, out_ptr, n, C, HW, eps,
                       BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = (offs // HW) % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    mean = tl.load(mean_ptr + c, mask=mask, other=0.0)
    var = tl.load(var_ptr + c, mask=mask, other=1.0)
    w = tl.load(w_ptr + c, mask=mask, other=0.0)
    b = tl.load(b_ptr + c, mask=mask, other=0.0)
    tl.store(out_ptr + offs, (x - mean) / tl.sqrt(var + eps) * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, channels, eps):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(channels))
        self.bias = nn.Parameter(0.5 * torch.randn(channels))
        self.register_buffer("running_mean", torch.randn(channels))
        self.register_buffer("running_var", 0.5 + torch.rand(channels))
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        batch, channels, height, width = x.shape
        out = torch.empty_like(x)
        n = x.numel()
        BLOCK = 1024
        _batch_norm_kernel[(triton.cdiv(n, BLOCK),)](
            x, self.running_mean, self.running_var, self.weight, self.bias, out,
            n, channels, height * width, self.eps, BLOCK=BLOCK)
        return out
