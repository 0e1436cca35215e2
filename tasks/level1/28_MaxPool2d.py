"""2-D max pooling (kernel 3, stride 2, padding 1) of a [batch_size, channels, height, width] tensor."""
import torch
import torch.nn as nn

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 2, "channels": 3, "height": 33, "width": 40},
    "medium": {"batch_size": 16, "channels": 64, "height": 128, "width": 128},
    "large": {"batch_size": 24, "channels": 64, "height": 512, "width": 512},
}
batch_size = 16
channels = 64
height = 128
width = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return []
