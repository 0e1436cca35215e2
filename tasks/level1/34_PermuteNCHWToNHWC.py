"""Contiguous permute of a [batch_size, channels, height, width] tensor to [batch_size, height, width, channels]."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 2, "channels": 67, "height": 9, "width": 10},
    "medium": {"batch_size": 16, "channels": 64, "height": 128, "width": 128},
    "large": {"batch_size": 64, "channels": 64, "height": 256, "width": 256},
}
batch_size = 16
channels = 64
height = 128
width = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.permute(0, 2, 3, 1).contiguous()


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
