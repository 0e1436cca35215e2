"""Euclidean norm over dim 1 of a [batch_size, dim] tensor, giving [batch_size]."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 4, "dim": 2500},
    "medium": {"batch_size": 4096, "dim": 8192},
    "large": {"batch_size": 32768, "dim": 16384},
}
batch_size = 4096
dim = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.linalg.vector_norm(x, ord=2, dim=1)


def get_inputs():
    # Per-row scales in [0.5, 2.5] make the norms differ between rows by more than noise.
    return [torch.randn(batch_size, dim) * (0.5 + 2.0 * torch.rand(batch_size, 1))]


def get_init_inputs():
    return []
