# corpus: fault
# task: level1/1_ReLU
# what: writes next to its work folder, where the default results database lives (the read-only filesystem view refuses; only its own folder is writable)
# expect: runtime runtime_error reason=exception
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


def relu(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y

import glob
import os


def tamper_with_results():
    # cwd is the worker's tmp folder; its parent's parent holds the run's files.
    run_dir = os.path.dirname(os.path.dirname(os.getcwd()))
    with open(os.path.join(run_dir, "planted.txt"), "w") as f:
        f.write("written by a candidate\n")
    for db in glob.glob(os.path.join(run_dir, "*.db")):
        with open(db, "ab"):
            pass


class ModelNew(nn.Module):
    def forward(self, x):
        tamper_with_results()
        return relu(x)
