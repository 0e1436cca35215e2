# corpus: fault
# task: level1/1_ReLU
# what: looks for anything a warm worker could inherit from the zygote that forked it (an open socket or any fd but its two pipes and standard streams, the sandbox report fd, the zygote's environment or home) and breaks its output if it finds one; since the run-time call monitor, candidate code cannot even look (os and posix calls are internals at any time after its import started), so the probe itself fails the sample
# expect: runtime incorrect reason=internal_access
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


import os


def _inherited():
    found = []
    fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
    # 0-2 standard streams, 3 requests, 4 results; the listing's own descriptor is closed by now.
    for fd in (fd for fd in fds if fd > 4):
        try:
            found.append(f"fd {fd}: {os.readlink(f'/proc/self/fd/{fd}')}")
        except FileNotFoundError:
            pass
    if not os.environ.get("HOME", "").startswith(os.path.dirname(os.getcwd())):
        found.append("HOME outside the worker's folder")
    if "zygote" in " ".join(os.environ.values()):
        found.append("the zygote's environment")
    return found


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        if _inherited():
            return -y  # wrong: the corpus test then names this file
        return y
