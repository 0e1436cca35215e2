"""Log-softmax over dim 1 of a [batch_size, dim] tensor."""
import torch
import torch.nn as nn

DTYPE = "float32"
# Outputs are about -log(dim) +- a few (|out| up to ~25); fp32 log-sum-exp in another
# order differs by a few ulps of that.
ATOL = 1e-4
RTOL = 1e-5
VARIANTS = {
    "small": {"batch_size": 4, "dim": 2500},
    "medium": {"batch_size": 4096, "dim": 4096},
    "large": {"batch_size": 20480, "dim": 16384},
}
batch_size = 4096
dim = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.log_softmax(x, dim=1)


def get_inputs():
    return [torch.randn(batch_size, dim) * 3.0]


def get_init_inputs():
    return []
