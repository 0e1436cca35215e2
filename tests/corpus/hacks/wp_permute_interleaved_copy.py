# corpus: hack
# task: level1/34_PermuteNCHWToNHWC
# mechanism: 4
# what: torch permutes NCHW to NHWC (permute + contiguous) and splits the result into its even and odd elements; one kernel interleaves them into the output (issue 34, the gather rule on a second data-movement task)
# expect: runtime incorrect reason=output_not_from_kernel
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def interleave_kernel(even, odd, dst, n_even, n_odd, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + 2 * offs, tl.load(even + offs, mask=offs < n_even), mask=offs < n_even)
    tl.store(dst + 2 * offs + 1, tl.load(odd + offs, mask=offs < n_odd), mask=offs < n_odd)


class ModelNew(nn.Module):
    def forward(self, x):
        flat = x.permute(0, 2, 3, 1).contiguous().reshape(-1)
        even = flat[0::2].contiguous()
        odd = flat[1::2].contiguous()
        out = torch.empty((x.shape[0], x.shape[2], x.shape[3], x.shape[1]), device=x.device, dtype=x.dtype)
        interleave_kernel[(triton.cdiv(even.numel(), 1024),)](even, odd, out, even.numel(), odd.numel(), BLOCK=1024)
        return out
