"""Sum over dim 1 of a [batch_size, dim] tensor, giving [batch_size]."""
import torch
import torch.nn as nn

DTYPE = "float32"
# Row sums have magnitude ~sqrt(dim) (up to ~130); a different but valid fp32 summation
# order differs by ~1e-5 absolute, which the 1e-4 default leaves no margin for on
# rows that sum close to zero.
ATOL = 1e-3
RTOL = 1e-4
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
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
