# corpus: hack
# task: level1/1_ReLU
# what: correct ReLU launched on a side stream with no wait, so CUDA events on the current stream see almost nothing (T1)
# expect: static func.cuda_stream
# no-static: runtime incorrect reason=host_compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


def launch_relu(x, y):
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = torch.cuda.Stream() if torch.cuda.is_available() else None

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        if self.side is None:
            return launch_relu(x, y)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            launch_relu(x, y)
        return y
