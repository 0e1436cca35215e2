"""LeakyReLU with a constructor-given negative slope, elementwise on a [batch_size, dim] tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 5, "dim": 300},
    "medium": {"batch_size": 4096, "dim": 4096},
    "large": {"batch_size": 20480, "dim": 16384},
}
batch_size = 4096
dim = 4096
negative_slope = 0.15


class Model(nn.Module):
    def __init__(self, negative_slope):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, negative_slope=self.negative_slope)


def get_inputs():
    # Both signs present; slope 0.15 is neither ReLU (0) nor identity (1).
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [negative_slope]
