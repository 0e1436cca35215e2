"""Product of a [M, K] matrix and a [K] vector, giving [M]."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"M": 30, "K": 200},
    "medium": {"M": 8192, "K": 8192},
    "large": {"M": 32768, "K": 16384},
}
M = 8192
K = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, x):
        return torch.mv(a, x)


def get_inputs():
    # x scaled by 1/sqrt(K): outputs about standard normal.
    return [torch.randn(M, K), torch.randn(K) / K**0.5]


def get_init_inputs():
    return []
