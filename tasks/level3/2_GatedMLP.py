"""SwiGLU feed-forward block: down(silu(gate(x)) * up(x)) over [batch, seq, dim]."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 2, "seq_len": 8, "dim": 32, "hidden": 48},
    "medium": {"batch_size": 8, "seq_len": 256, "dim": 512, "hidden": 1408},
    "large": {"batch_size": 16, "seq_len": 512, "dim": 1024, "hidden": 2816},
}

batch_size = 8
seq_len = 256
dim = 512
hidden = 1408


class Model(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim)]


def get_init_inputs():
    return [dim, hidden]
