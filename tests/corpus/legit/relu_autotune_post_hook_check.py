# corpus: legit
# task: level1/1_ReLU
# what: autotune with a post_hook that only checks the launch raised nothing (an honest hook: no tensor work, no state)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _check(nargs, exception=None):
    if exception is not None:
        raise RuntimeError("relu_kernel failed") from exception


@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})], key=["n"],
                 post_hook=_check)
@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
        return y
