"""Sum of a [M, N] matrix and a [N] row vector broadcast over the rows."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"M": 6, "N": 300},
    "medium": {"M": 4096, "N": 4096},
    "large": {"M": 20480, "N": 16384},
}
M = 4096
N = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a + b


def get_inputs():
    return [torch.randn(M, N), torch.randn(N)]


def get_init_inputs():
    return []
