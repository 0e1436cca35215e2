"""3x3 convolution (padding 1), tanh, plus the input: tanh(conv(x)) + x."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
# cuDNN runs fp32 convolutions in TF32 by default on GPUs, so the reference itself
# carries ~1e-3 relative error there; 1e-2 covers it (docs/tasks.md, tolerance policy).
ATOL = 1e-2
RTOL = 1e-2
VARIANTS = {
    "small": {"batch_size": 2, "channels": 8, "height": 8, "width": 8},
    "medium": {"batch_size": 16, "channels": 64, "height": 64, "width": 64},
    "large": {"batch_size": 32, "channels": 64, "height": 128, "width": 128},
}

batch_size = 16
channels = 64
height = 64
width = 64


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return torch.tanh(self.conv(x)) + x


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels]
