# corpus: legit
# task: level1/1_ReLU
# what: persistent kernel, a fixed number of programs strides over all tiles
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_persistent_kernel(x_ptr, y_ptr, n, num_tiles, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    for tile in range(pid, num_tiles, nprog):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(x_ptr + offs, mask=m, other=0.0)
        tl.store(y_ptr + offs, tl.maximum(v, 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self, num_programs: int = 8):
        super().__init__()
        self.num_programs = num_programs

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        BLOCK = 512
        tiles = triton.cdiv(n, BLOCK)
        progs = min(tiles, self.num_programs)
        relu_persistent_kernel[(progs,)](x, y, n, tiles, BLOCK=BLOCK)
        return y
