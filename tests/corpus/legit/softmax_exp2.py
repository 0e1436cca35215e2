# corpus: legit
# task: level1/3_Softmax
# what: exp2 with a log2(e) scale folded into a constexpr, fp32 accumulation of any input dtype
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def softmax_exp2_kernel(x_ptr, y_ptr, stride, N, SCALE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    valid = offs < N
    x = tl.load(x_ptr + row * stride + offs, mask=valid, other=-float("inf")).to(tl.float32)
    z = (x - tl.max(x, axis=0)) * SCALE
    e = tl.exp2(z)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * stride + offs, y.to(y_ptr.dtype.element_ty), mask=valid)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        softmax_exp2_kernel[(x.shape[0],)](x, y, x.stride(0), x.shape[1], SCALE=LOG2E,
                                           BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
