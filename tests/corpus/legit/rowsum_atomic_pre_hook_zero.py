# corpus: legit
# task: level1/4_RowSum
# what: split-N atomics into an output zeroed by an autotune config pre_hook (a zero_ on the output)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _zero_output(nargs):
    nargs["out_ptr"].zero_()


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, pre_hook=_zero_output)], key=["N"])
@triton.jit
def rowsum_split_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.atomic_add(out_ptr + row, tl.sum(v, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty((M,), dtype=torch.float32, device=x.device)
        rowsum_split_kernel[lambda meta: (M, triton.cdiv(N, meta["BLOCK"]))](x, out, N)
        return out
