# corpus: legit
# task: level1/28_MaxPool2d
# what: torch makes a channels-last copy of the input (permute + contiguous, on the way to the kernel) and the kernel max-pools it into an NCHW output: every output element is an element of that torch-permuted buffer, a selection the kernel made by comparing (the writer proof's subset rule must leave a selection over a rearrangement of one input alone)
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pool_nhwc_kernel(x_ptr, out_ptr, n_out, C, H, W, OH, OW, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    ow = offs % OW
    oh = (offs // OW) % OH
    c = (offs // (OW * OH)) % C
    b = offs // (OW * OH * C)
    acc = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for kh in tl.static_range(3):
        ih = oh * 2 - 1 + kh
        for kw in tl.static_range(3):
            iw = ow * 2 - 1 + kw
            inside = mask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            v = tl.load(x_ptr + ((b * H + ih) * W + iw) * C + c, mask=inside, other=float("-inf"))
            acc = tl.maximum(acc, v)
    tl.store(out_ptr + offs, acc, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        batch, channels, height, width = x.shape
        nhwc = x.permute(0, 2, 3, 1).contiguous()
        out_h = (height + 2 - 3) // 2 + 1
        out_w = (width + 2 - 3) // 2 + 1
        out = torch.empty(batch, channels, out_h, out_w, device=x.device, dtype=x.dtype)
        n_out = out.numel()
        pool_nhwc_kernel[(triton.cdiv(n_out, 1024),)](nhwc, out, n_out, channels, height, width, out_h, out_w,
                                                      BLOCK=1024)
        return out
