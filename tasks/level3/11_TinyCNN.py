"""Small image classifier: conv-ReLU-avgpool, conv-ReLU, global average pool, linear head."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
# cuDNN runs fp32 convolutions in TF32 by default on GPUs, so the reference itself
# carries ~1e-3 relative error there; 1e-2 covers it (docs/tasks.md, tolerance policy).
ATOL = 1e-2
RTOL = 1e-2
VARIANTS = {
    "small": {"batch_size": 2, "height": 8, "width": 8, "num_classes": 10},
    "medium": {"batch_size": 64, "height": 64, "width": 64, "num_classes": 100},
    "large": {"batch_size": 128, "height": 128, "width": 128, "num_classes": 100},
}

batch_size = 64
height = 64
width = 64
num_classes = 100


class Model(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        h = F.avg_pool2d(torch.relu(self.conv1(x)), 2)
        h = torch.relu(self.conv2(h))
        return self.head(h.mean(dim=(2, 3)))


def get_inputs():
    # Each image gets its own brightness per channel and its own contrast: with plain
    # noise the global average pool of the large variant sees nearly the same statistics in
    # every image, and an input-independent output passed the check (audit: input_sensitive).
    noise = torch.randn(batch_size, 3, height, width)
    contrast = 0.5 + torch.rand(batch_size, 1, 1, 1)
    return [noise * contrast + torch.randn(batch_size, 3, 1, 1)]


def get_init_inputs():
    return [num_classes]
