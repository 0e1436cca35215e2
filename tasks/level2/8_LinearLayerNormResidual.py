"""Linear layer, layer norm (random affine), plus the input as a residual: norm(linear(x)) + x."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 8, "features": 96},
    "medium": {"batch_size": 512, "features": 1024},
    "large": {"batch_size": 4096, "features": 4096},
}

batch_size = 512
features = 1024


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.linear = nn.Linear(features, features)
        self.norm = nn.LayerNorm(features)
        with torch.no_grad():  # a non-trivial affine, so a kernel that skips it fails
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return self.norm(self.linear(x)) + x


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
