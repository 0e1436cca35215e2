"""Rows of a [num_rows, dim] tensor selected by an int64 index vector (index_select on dim 0)."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"num_rows": 50, "dim": 1100, "num_index": 12},
    "medium": {"num_rows": 65536, "dim": 512, "num_index": 65536},
    "large": {"num_rows": 262144, "dim": 1024, "num_index": 262144},
}
num_rows = 65536
dim = 512
num_index = 65536


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        return torch.index_select(x, 0, index)


def get_inputs():
    x = torch.randn(num_rows, dim)
    # A random selection of distinct rows in random order (a full permutation when
    # num_index == num_rows).
    index = torch.randperm(num_rows)[:num_index]
    return [x, index]


def get_init_inputs():
    return []
