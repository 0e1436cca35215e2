"""Linear layer followed by logsumexp over the features (keepdim)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 80, "in_features": 72, "out_features": 100},
    "medium": {"batch_size": 512, "in_features": 1024, "out_features": 1024},
    "large": {"batch_size": 4096, "in_features": 4096, "out_features": 4096},
}

batch_size = 512
in_features = 1024
out_features = 1024


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.logsumexp(self.linear(x), dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
