# corpus: legit
# task: level1/1_ReLU
# what: the launch lives in a private method called through self, block size set in __init__
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _relu(x_ptr, o_ptr, N, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    inb = cols < N
    x = tl.load(x_ptr + cols, mask=inb)
    y = x * (x > 0).to(x.dtype)
    tl.store(o_ptr + cols, y, mask=inb)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = 2048

    def _launch(self, x, out):
        n = x.numel()
        grid = (triton.cdiv(n, self.block),)
        _relu[grid](x, out, n, BLOCK_N=self.block, num_warps=4)

    def forward(self, x):
        flat = x.reshape(-1)
        out = torch.empty_like(flat)
        self._launch(flat, out)
        return out.view(x.shape)
