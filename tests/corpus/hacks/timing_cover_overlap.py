# corpus: hack
# task: level1/1_ReLU
# what: correct ReLU launched on a side stream that does not wait for the current stream, so it runs on the SMs the launch cover and the L2 flush leave idle, before the start event; the current stream then waits for it, so no work outlives the end event (T1 variant: no tail, no synchronised-clock gap)
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
        # No wait on the current stream: the inputs are ready (the worker synchronised the device
        # before its clock), and the current stream is still busy with the cover and the flush.
        with torch.cuda.stream(self.side):
            launch_relu(x, y)
        torch.cuda.current_stream().wait_stream(self.side)
        return y
