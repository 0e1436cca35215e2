"""Layer normalization over the last dim of a [batch_size, dim] tensor with learned weight and bias."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 4, "dim": 2500},
    "medium": {"batch_size": 4096, "dim": 4096},
    "large": {"batch_size": 20480, "dim": 16384},
}
batch_size = 4096
dim = 4096
eps = 1e-5


class Model(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        # Random affine parameters: the default ones/zeros would make the affine step a no-op.
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(dim))
        self.bias = nn.Parameter(0.5 * torch.randn(dim))
        self.dim = dim
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x, (self.dim,), self.weight, self.bias, self.eps)


def get_inputs():
    # Row means around 1 and variances around 4, far above eps.
    return [torch.randn(batch_size, dim) * 2.0 + torch.randn(batch_size, 1)]


def get_init_inputs():
    return [dim, eps]
