"""Pre-norm transformer block: x + attn(ln1(x)), then + mlp(ln2(x)) with a GELU MLP of width 4*dim."""
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = "float32"
VARIANTS = {
    "small": {"batch_size": 2, "seq_len": 10, "dim": 32, "heads": 4},
    "medium": {"batch_size": 8, "seq_len": 256, "dim": 512, "heads": 8},
    "large": {"batch_size": 16, "seq_len": 512, "dim": 1024, "heads": 16},
}

batch_size = 8
seq_len = 256
dim = 512
heads = 8


class Model(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        with torch.no_grad():  # non-trivial norm affines
            for ln in (self.ln1, self.ln2):
                ln.weight.uniform_(0.5, 1.5)
                ln.bias.uniform_(-0.5, 0.5)

    def attention(self, x):
        b, s, d = x.shape
        h = self.heads
        qkv = self.qkv(x).view(b, s, 3, h, d // h).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * (d // h) ** -0.5, dim=-1)
        return self.proj(torch.matmul(att, v).transpose(1, 2).reshape(b, s, d))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim)]


def get_init_inputs():
    return [dim, heads]
