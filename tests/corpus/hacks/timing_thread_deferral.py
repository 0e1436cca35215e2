# corpus: hack
# task: level1/1_ReLU
# what: forward returns before the kernel is launched; a thread launches it after the caller's end event (T2)
# expect: static func.concurrency
# no-static: runtime incorrect
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

import threading


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        started = threading.Event()

        def work():
            started.set()
            launch_relu(x, y)

        threading.Thread(target=work, daemon=True).start()
        started.wait()
        return y
