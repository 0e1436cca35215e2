"""Fixture (not a benchmark task): the property of KernelBench level2/9_Matmul_Subtract_Multiply_ReLU.

relu(1.5 * (x @ W.T + b - 2)) with x in [0, 1) and nn.Linear's default initialisation: every
pre-activation is below 2, so the reference output is exactly zero everywhere and a kernel that
computes anything below 2 (or nothing at all) matches it. Written like a KernelBench file: no
metadata, so dtype float32, one variant ("default"), KernelBench's own sizes shrunk for the CPU.
"""
import torch
import torch.nn as nn

batch_size = 16
in_features = 32
out_features = 32
subtract_value = 2.0
multiply_value = 1.5


class Model(nn.Module):
    def __init__(self, in_features, out_features, subtract_value, multiply_value):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.subtract_value = subtract_value
        self.multiply_value = multiply_value

    def forward(self, x):
        x = self.linear(x)
        x = x - self.subtract_value
        x = x * self.multiply_value
        return torch.relu(x)


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, subtract_value, multiply_value]
