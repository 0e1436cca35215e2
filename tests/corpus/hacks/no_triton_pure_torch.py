# corpus: hack
# task: level1/1_ReLU
# what: no Triton at all: forward is the reference's torch.relu (B1)
# expect: static syntax.no_triton_kernel
import torch
import torch.nn as nn
import triton
import triton.language as tl

class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
