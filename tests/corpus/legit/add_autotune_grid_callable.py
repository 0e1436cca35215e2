# corpus: legit
# task: level1/2_AddBroadcast
# what: autotuned broadcast add launched with a grid callable that reads the chosen BLOCK from meta
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 2048})], key=["total"])
@triton.jit
def add_kernel(a_ptr, b_ptr, y_ptr, total, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    a = tl.load(a_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs % n_cols, mask=m)
    tl.store(y_ptr + offs, a + b, mask=m)


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        y = torch.empty_like(a)
        total = a.numel()
        add_kernel[lambda meta: (triton.cdiv(total, meta["BLOCK"]),)](a, b, y, total, a.shape[-1])
        return y
