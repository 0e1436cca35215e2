"""torch.gather along dim 1: out[i, j] = x[i, index[i, j]] for a [batch_size, dim] tensor and an int64 [batch_size, num_index] index."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 4, "dim": 100, "num_index": 300},
    "medium": {"batch_size": 4096, "dim": 4096, "num_index": 2048},
    "large": {"batch_size": 16384, "dim": 8192, "num_index": 8192},
}
batch_size = 4096
dim = 4096
num_index = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, index):
        return torch.gather(x, 1, index)


def get_inputs():
    x = torch.randn(batch_size, dim)
    # Random column positions per row (with repeats), drawn from the seeded RNG.
    index = torch.randint(0, dim, (batch_size, num_index), dtype=torch.int64)
    return [x, index]


def get_init_inputs():
    return []
