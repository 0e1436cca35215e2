# corpus: hack
# task: level1/1_ReLU
# what: an autotune config's pre_hook writes torch.relu of the input into the output before the launch
# expect: static func.torch_compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _fill(nargs):
    nargs["y_ptr"].copy_(torch.relu(nargs["x_ptr"]))


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, pre_hook=_fill)], key=["n"])
@triton.jit
def noop_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(y_ptr + offs, mask=offs < n), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        noop_kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, y, x.numel())
        return y
