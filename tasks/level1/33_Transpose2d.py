"""Contiguous transpose of a [M, N] matrix, giving [N, M]."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"M": 70, "N": 100},
    "medium": {"M": 4096, "N": 4096},
    "large": {"M": 20480, "N": 16384},
}
M = 4096
N = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return []
