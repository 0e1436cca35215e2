# corpus: legit
# task: level1/11_LeakyReLU
# what: forward walks the flat input in chunks, for start in range(0, n, CHUNK), one launch per chunk with start and min(CHUNK, n - start) as int arguments
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def leaky_relu_kernel(x_ptr, y_ptr, start, count, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < count
    x = tl.load(x_ptr + start + offs, mask=m)
    tl.store(y_ptr + start + offs, tl.where(x >= 0, x, x * slope), mask=m)


class ModelNew(nn.Module):
    CHUNK = 512

    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        xf = x.contiguous().view(-1)
        y = torch.empty_like(xf)
        n = xf.numel()
        for start in range(0, n, self.CHUNK):
            count = min(self.CHUNK, n - start)
            leaky_relu_kernel[(triton.cdiv(count, 256),)](xf, y, start, count, self.negative_slope, BLOCK=256)
        return y.view(x.shape)
