"""bfloat16 Llama-style feed-forward sub-block: x + down(silu(gate(h)) * up(h)), h = rms_norm(x) * w."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "bfloat16"
VARIANTS = {
    "small": {"batch_size": 2, "seq_len": 8, "dim": 32, "hidden": 48},
    "medium": {"batch_size": 8, "seq_len": 256, "dim": 1024, "hidden": 2816},
    "large": {"batch_size": 16, "seq_len": 1024, "dim": 2048, "hidden": 5632},
}

batch_size = 8
seq_len = 256
dim = 1024
hidden = 2816


class Model(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm_weight = nn.Parameter(torch.rand(dim) + 0.5)
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        h = F.rms_norm(x, (x.shape[-1],), self.norm_weight, 1e-6)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim).to(torch.bfloat16)]


def get_init_inputs():
    return [dim, hidden]
