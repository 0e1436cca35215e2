"""bfloat16 matmul, constant scale, plus a residual: a @ b * alpha + c."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "bfloat16"
VARIANTS = {
    "small": {"M": 40, "K": 64, "N": 48},
    "medium": {"M": 1024, "K": 1024, "N": 1024},
    "large": {"M": 8192, "K": 4096, "N": 8192},
}

M = 1024
K = 1024
N = 1024


class Model(nn.Module):
    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def forward(self, a, b, c):
        return torch.matmul(a, b) * self.alpha + c


def get_inputs():
    a = (torch.randn(M, K) / K**0.5).to(torch.bfloat16)
    b = torch.randn(K, N).to(torch.bfloat16)
    c = torch.randn(M, N).to(torch.bfloat16)
    return [a, b, c]


def get_init_inputs():
    return [0.5]
