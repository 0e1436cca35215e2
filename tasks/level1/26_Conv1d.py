"""1-D convolution (stride 1, no padding, with bias) of a [batch_size, in_channels, length] tensor."""
import torch
import torch.nn as nn

DTYPE = "float32"
# On GPU, cuDNN runs fp32 convolutions in TF32 by default (torch.backends.cudnn.allow_tf32),
# so the reference itself carries ~4e-4 relative error per output; an fp32 or TF32
# solution differs from it by up to a few 1e-3 on unit-scale outputs.
ATOL = 1e-2
RTOL = 1e-2
VARIANTS = {
    "small": {"batch_size": 2, "in_channels": 7, "out_channels": 70, "length": 100},
    "medium": {"batch_size": 16, "in_channels": 64, "out_channels": 128, "length": 4096},
    "large": {"batch_size": 64, "in_channels": 256, "out_channels": 256, "length": 16384},
}
batch_size = 16
in_channels = 64
out_channels = 128
length = 4096
kernel_size = 5


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
