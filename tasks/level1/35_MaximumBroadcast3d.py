"""Elementwise maximum of a [batch_size, seq, dim] tensor and a [batch_size, 1, dim] tensor broadcast over dim 1."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 2, "seq": 7, "dim": 90},
    "medium": {"batch_size": 16, "seq": 512, "dim": 2048},
    "large": {"batch_size": 80, "seq": 2048, "dim": 2048},
}
batch_size = 16
seq = 512
dim = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.maximum(a, b)


def get_inputs():
    # Same distribution for both: each side wins about half the time.
    return [torch.randn(batch_size, seq, dim), torch.randn(batch_size, 1, dim)]


def get_init_inputs():
    return []
