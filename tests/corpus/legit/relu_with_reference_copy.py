# corpus: legit
# task: level1/1_ReLU
# what: repeats the reference Model, get_inputs and get_init_inputs beside ModelNew, as real outputs do
# expect: correct
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

batch_size = 16
dim = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ok = i < n
    tl.store(out_ptr + i, tl.maximum(tl.load(x_ptr + i, mask=ok, other=0.0), 0.0), mask=ok)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
