"""Product of a [M, K] matrix with the transpose of a [N, K] matrix, giving [M, N]."""
import torch
import torch.nn as nn

DTYPE = "float32"
# tl.dot on fp32 operands uses TF32 by default: ~4e-4 relative error per unit-scale
# output, ~2e-3 at the tail of millions of outputs. 5e-3 admits TF32 and rejects bf16.
ATOL = 5e-3
RTOL = 5e-3
VARIANTS = {
    "small": {"M": 70, "K": 40, "N": 80},
    "medium": {"M": 2048, "K": 2048, "N": 1024},
    "large": {"M": 4096, "K": 4096, "N": 4096},
}
M = 2048
K = 2048
N = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b.T)


def get_inputs():
    return [torch.randn(M, K), torch.randn(N, K) / K**0.5]


def get_init_inputs():
    return []
