"""Product of a [M, N] matrix and a [M, 1] column vector broadcast over the columns."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"M": 7, "N": 150},
    "medium": {"M": 4096, "N": 4096},
    "large": {"M": 20480, "N": 16384},
}
M = 4096
N = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a * b


def get_inputs():
    return [torch.randn(M, N), torch.randn(M, 1)]


def get_init_inputs():
    return []
