"""Row sum, constant scale, then sigmoid: sigmoid(sum(x, 1) * scale)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 8, "dim": 100},
    "medium": {"batch_size": 4096, "dim": 4096},
    "large": {"batch_size": 32768, "dim": 16384},
}

batch_size = 4096
dim = 4096


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.sigmoid(x.sum(dim=1) * self.scale)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [0.05]
