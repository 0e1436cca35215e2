"""Mean over dim 1 of a [batch_size, rows, cols] tensor, giving [batch_size, cols]."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 3, "rows": 50, "cols": 200},
    "medium": {"batch_size": 16, "rows": 512, "cols": 1024},
    "large": {"batch_size": 64, "rows": 3072, "cols": 4096},
}
batch_size = 16
rows = 512
cols = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.mean(x, dim=1)


def get_inputs():
    # Offset 0.5 plus unit noise: means are about 0.5 +- 1/sqrt(rows), never near zero.
    return [torch.randn(batch_size, rows, cols) + 0.5]


def get_init_inputs():
    return []
