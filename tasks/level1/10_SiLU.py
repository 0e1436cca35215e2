"""SiLU (x * sigmoid(x)), elementwise on a bfloat16 [batch_size, dim] tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "bfloat16"
VARIANTS = {
    "small": {"batch_size": 5, "dim": 300},
    "medium": {"batch_size": 4096, "dim": 4096},
    "large": {"batch_size": 40960, "dim": 16384},
}
batch_size = 4096
dim = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.silu(x)


def get_inputs():
    # Spread 3 reaches the negative dip and the near-identity positive side.
    return [torch.randn(batch_size, dim, dtype=torch.bfloat16) * 3.0]


def get_init_inputs():
    return []
