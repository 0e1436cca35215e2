# corpus: legit
# task: level1/1_ReLU
# what: relu_kernel_on_transposed_copy with every output scaled by 1 + 2^-22 (inside the tolerance): the positive half of the output is torch's buffer shifted within the tolerance, which the tolerant reading of the mixing rule takes as those elements; the buffer is the input rearranged, each element once, so the exemption that lets ReLU over it through lets this through too (a near-identity of a permuted copy of the input is judged as the identity is)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_scaled_from_t_kernel(xt_ptr, out_ptr, R, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < R * C
    r = offs // C
    c = offs % C
    v = tl.load(xt_ptr + c * R + r, mask=m)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0) * (1.0 + 1.0 / 4194304.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        R, C = x.shape
        xt = x.t().contiguous()
        out = torch.empty((R, C), device=x.device, dtype=x.dtype)
        relu_scaled_from_t_kernel[(triton.cdiv(R * C, 1024),)](xt, out, R, C, BLOCK=1024)
        return out
