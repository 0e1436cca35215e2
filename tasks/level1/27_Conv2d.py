"""2-D 3x3 convolution (stride 1, padding 1, with bias) of a [batch_size, in_channels, height, width] tensor."""
import torch
import torch.nn as nn

DTYPE = "float32"
# cuDNN uses TF32 for fp32 convolutions by default; see 26_Conv1d for the tolerance.
ATOL = 1e-2
RTOL = 1e-2
VARIANTS = {
    "small": {"batch_size": 2, "in_channels": 4, "out_channels": 70, "height": 10, "width": 12},
    "medium": {"batch_size": 16, "in_channels": 32, "out_channels": 64, "height": 64, "width": 64},
    "large": {"batch_size": 64, "in_channels": 128, "out_channels": 128, "height": 128, "width": 128},
}
batch_size = 16
in_channels = 32
out_channels = 64
height = 64
width = 64


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels]
