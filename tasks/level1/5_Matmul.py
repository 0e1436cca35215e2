"""Matrix product of a [M, K] and a [K, N] matrix."""
import torch
import torch.nn as nn

DTYPE = "float32"
# tl.dot on fp32 operands uses TF32 tensor cores by default (10 explicit mantissa bits).
# With unit-scale outputs that is a relative error of about 4e-4 per element, ~2e-3 at
# the tail of 16M outputs; 5e-3 admits TF32 but rejects a bf16 downgrade (~3e-3 per
# element, above 1e-2 at the tail).
ATOL = 5e-3
RTOL = 5e-3
VARIANTS = {
    "small": {"M": 70, "K": 40, "N": 80},
    "medium": {"M": 2048, "K": 1024, "N": 1536},
    "large": {"M": 4096, "K": 4096, "N": 4096},
}
M = 2048
K = 1024
N = 1536


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    # b is scaled by 1/sqrt(K) so the outputs are about standard normal for every K.
    return [torch.randn(M, K), torch.randn(K, N) / K**0.5]


def get_init_inputs():
    return []
