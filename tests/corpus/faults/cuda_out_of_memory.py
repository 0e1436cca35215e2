# corpus: fault
# task: level1/1_ReLU
# what: asks for a 1 TiB tensor on the GPU inside forward (CUDA out of memory; the next sample gets a fresh process)
# expect: runtime runtime_error reason=out_of_memory
# device: gpu
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


def relu(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        big = torch.empty(1 << 38, dtype=torch.float32, device=x.device)
        return relu(x) + big[:1]
