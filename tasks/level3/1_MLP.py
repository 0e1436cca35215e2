"""Three-layer perceptron: Linear, ReLU, Linear, ReLU, Linear."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 8, "in_features": 40, "hidden": 64, "out_features": 24},
    "medium": {"batch_size": 512, "in_features": 1024, "hidden": 2048, "out_features": 512},
    "large": {"batch_size": 4096, "in_features": 2048, "hidden": 4096, "out_features": 1024},
}

batch_size = 512
in_features = 1024
hidden = 2048
out_features = 512


class Model(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, out_features)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        h = torch.relu(self.fc2(h))
        return self.fc3(h)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, hidden, out_features]
