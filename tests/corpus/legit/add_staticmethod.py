# corpus: legit
# task: level1/2_AddBroadcast
# what: a staticmethod wrapper on the module class and an explicit output argument
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_add_kernel(x_ptr, bias_ptr, y_ptr, n_total, n_cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    valid = offs < n_total
    x = tl.load(x_ptr + offs, mask=valid, other=0.0)
    bias = tl.load(bias_ptr + offs % n_cols, mask=valid, other=0.0)
    tl.store(y_ptr + offs, x + bias, mask=valid)


class ModelNew(nn.Module):
    @staticmethod
    def _add(x, bias, out):
        n_total = x.numel()
        bias_add_kernel[(triton.cdiv(n_total, 2048),)](x, bias, out, n_total, bias.numel(), BLOCK=2048)
        return out

    def forward(self, a, b):
        a = a.contiguous()
        return ModelNew._add(a, b.contiguous(), torch.empty_like(a))
