# corpus: fault
# task: level1/1_ReLU
# what: a kernel that stores far outside its output (illegal memory access: the CUDA context is lost, the sample fails, the next one gets a fresh process)
# expect: runtime runtime_error reason=exception
# device: gpu
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def stray_store_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    far = offs.to(tl.int64) + (1 << 40)  # a terabyte past the output
    tl.store(y_ptr + far, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        stray_store_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        torch.cuda.synchronize()
        return y
