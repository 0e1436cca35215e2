# corpus: legit
# task: level1/20_RMSNorm
# what: one program per row computes the RMS norm in fp32 into an fp32 buffer; forward returns it converted to the input's bf16 with .to(x.dtype)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_fp32_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
    inv_rms = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * n_cols + cols, x * inv_rms * w, mask=m)


class ModelNew(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(dim))  # the reference's draw, same seed
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y32 = torch.empty(x.shape, device=x.device, dtype=torch.float32)
        block = triton.next_power_of_2(cols)
        rmsnorm_fp32_kernel[(rows,)](x, self.weight, y32, cols, self.eps, BLOCK=block)
        return y32.to(x.dtype)
