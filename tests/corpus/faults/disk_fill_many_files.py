# corpus: fault
# task: level1/1_ReLU
# what: fills the disk with many files, each below the file-size limit, 3 GiB in all (the writable folders of a worker are size-capped tmpfs mounts)
# expect: runtime runtime_error reason=exception
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

import os


class ModelNew(nn.Module):
    def forward(self, x):
        chunk = b"\1" * (1 << 20)
        for i in range(48):  # 48 files of 64 MiB: no single file near the 256 MiB limit
            with open(f"part{i}.bin", "wb") as f:
                for _ in range(64):
                    f.write(chunk)
        for i in range(48):
            os.remove(f"part{i}.bin")
        return relu(x)
