"""ReLU applied elementwise to a [batch_size, dim] tensor."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 5, "dim": 300},
    "medium": {"batch_size": 4096, "dim": 4096},
    "large": {"batch_size": 20480, "dim": 16384},
}
batch_size = 4096
dim = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    # Standard normal: about half the entries are negative, so ReLU is never a no-op.
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
