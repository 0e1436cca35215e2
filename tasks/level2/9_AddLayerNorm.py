"""Residual add followed by layer norm (random affine): norm(x + y)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 8, "dim": 100},
    "medium": {"batch_size": 4096, "dim": 4096},
    "large": {"batch_size": 32768, "dim": 8192},
}

batch_size = 4096
dim = 4096


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x, y):
        return self.norm(x + y)


def get_inputs():
    return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dim]
