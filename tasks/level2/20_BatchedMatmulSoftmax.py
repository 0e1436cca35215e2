"""Scaled attention scores: softmax(q @ k^T / sqrt(d), dim=-1)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 2, "seq_len": 24, "head_dim": 16},
    "medium": {"batch_size": 32, "seq_len": 512, "head_dim": 64},
    "large": {"batch_size": 64, "seq_len": 2048, "head_dim": 64},
}

batch_size = 32
seq_len = 512
head_dim = 64


class Model(nn.Module):
    def __init__(self, head_dim):
        super().__init__()
        self.scale = head_dim**-0.5

    def forward(self, q, k):
        return torch.softmax(torch.bmm(q, k.transpose(1, 2)) * self.scale, dim=-1)


def get_inputs():
    return [torch.randn(batch_size, seq_len, head_dim), torch.randn(batch_size, seq_len, head_dim)]


def get_init_inputs():
    return [head_dim]
