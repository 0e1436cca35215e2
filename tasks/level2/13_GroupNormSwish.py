"""Group norm (random affine) followed by swish."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 2, "channels": 16, "groups": 4, "height": 6, "width": 6},
    "medium": {"batch_size": 32, "channels": 128, "groups": 8, "height": 32, "width": 32},
    "large": {"batch_size": 128, "channels": 256, "groups": 16, "height": 64, "width": 64},
}

batch_size = 32
channels = 128
groups = 8
height = 32
width = 32


class Model(nn.Module):
    def __init__(self, channels, groups):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        y = self.norm(x)
        return y * torch.sigmoid(y)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width) * 3.0 + 1.0]


def get_init_inputs():
    return [channels, groups]
