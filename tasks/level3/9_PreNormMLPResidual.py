"""Pre-norm MLP with a residual: x + fc2(gelu(fc1(layer_norm(x))))."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 2, "seq_len": 8, "dim": 32, "hidden": 64},
    "medium": {"batch_size": 8, "seq_len": 256, "dim": 1024, "hidden": 4096},
    "large": {"batch_size": 16, "seq_len": 512, "dim": 1024, "hidden": 4096},
}

batch_size = 8
seq_len = 256
dim = 1024
hidden = 4096


class Model(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim)]


def get_init_inputs():
    return [dim, hidden]
