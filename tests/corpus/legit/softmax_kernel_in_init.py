# corpus: legit
# task: level1/3_Softmax
# what: a row softmax kernel defined inside __init__ (closing over nothing) and launched as self.softmax
# expect: correct
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

        @triton.jit
        def softmax_row(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            m = cols < n_cols
            x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=-float("inf"))
            e = tl.exp(x - tl.max(x, axis=0))
            tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=m)

        self.softmax = softmax_row

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        rows, cols = x.shape
        self.softmax[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y
