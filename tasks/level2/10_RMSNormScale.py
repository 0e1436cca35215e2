"""RMS norm with a learned scale: x / sqrt(mean(x^2) + eps) * w."""
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
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)


def get_inputs():
    return [torch.randn(batch_size, dim) * 2.0]


def get_init_inputs():
    return [dim, 1e-6]
