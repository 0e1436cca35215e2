"""float16 gated projection: silu(x @ Wg^T) * (x @ Wu^T)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float16"
VARIANTS = {
    "small": {"batch_size": 8, "in_features": 64, "hidden": 80},
    "medium": {"batch_size": 1024, "in_features": 1024, "hidden": 2048},
    "large": {"batch_size": 8192, "in_features": 4096, "hidden": 4096},
}

batch_size = 1024
in_features = 1024
hidden = 2048


class Model(nn.Module):
    def __init__(self, in_features, hidden):
        super().__init__()
        self.gate = nn.Linear(in_features, hidden, bias=False)
        self.up = nn.Linear(in_features, hidden, bias=False)

    def forward(self, x):
        return F.silu(self.gate(x)) * self.up(x)


def get_inputs():
    return [torch.randn(batch_size, in_features).to(torch.float16)]


def get_init_inputs():
    return [in_features, hidden]
