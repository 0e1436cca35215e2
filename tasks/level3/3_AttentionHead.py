"""One self-attention head: softmax(q k^T / sqrt(d)) v with learned q, k, v projections."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 2, "seq_len": 12, "dim": 32, "head_dim": 16},
    "medium": {"batch_size": 16, "seq_len": 512, "dim": 512, "head_dim": 64},
    "large": {"batch_size": 32, "seq_len": 2048, "dim": 512, "head_dim": 128},
}

batch_size = 16
seq_len = 512
dim = 512
head_dim = 64


class Model(nn.Module):
    def __init__(self, dim, head_dim):
        super().__init__()
        self.q = nn.Linear(dim, head_dim)
        self.k = nn.Linear(dim, head_dim)
        self.v = nn.Linear(dim, head_dim)
        self.scale = head_dim**-0.5

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        scores = torch.matmul(q, k.transpose(1, 2)) * self.scale
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim)]


def get_init_inputs():
    return [dim, head_dim]
