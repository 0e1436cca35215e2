"""The worker's run-time guards (python/tritonrl_runner/guard.py, hooks.py) through the real
worker process: what each one reports for a candidate that does the work in Triton and for ones
that hide it (threads, host compute, internals, torch-written outputs, forward hooks)."""
import pytest
from test_runner_worker import KERNEL, run_worker, trials

HONEST_VIEW = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        return relu(x).view(-1).view(x.shape)
'''

THREAD = KERNEL + '''
import threading

class ModelNew(nn.Module):
    def forward(self, x):
        y = relu(x)
        t = threading.Thread(target=lambda: None)
        t.start()
        t.join()
        return y
'''

HOST = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        y = relu(x)
        vals = x.tolist()
        return y
'''

INTERNAL = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        with torch._C._DisableTorchDispatch():
            pass
        return relu(x)
'''

TORCH_WRITES_LAST = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        y = relu(x)
        y.copy_(x.clamp(min=0))
        return y
'''

STALE = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        if not hasattr(self, "first"):
            self.first = relu(x)
        relu(x)
        return self.first
'''

HOOKED = KERNEL + '''
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_forward_hook(lambda m, i, o: o)

    def forward(self, x):
        return relu(x)
'''


def test_honest_candidate_shows_clean_guards(tmp_path):
    for t in trials(run_worker(tmp_path, "candidate", HONEST_VIEW)):
        assert t["output_writers"] == ["kernel"]
        assert t["host_calls"] == [] and t["internal_calls"] == [] and t["module_hooks"] == []
        assert t["thread_ban"] == "on" and t["hooks_intact"]


def test_threads_cannot_start_after_the_import(tmp_path):
    frames = run_worker(tmp_path, "candidate", THREAD)
    err = [h for h, _ in frames if h["type"] == "error"]
    assert err and "can't start new thread" in err[0]["message"]


def test_host_compute_and_internals_are_reported(tmp_path):
    ts = trials(run_worker(tmp_path, "candidate", HOST))
    assert ts and all(any(c.startswith("Tensor.tolist") for c in t["host_calls"]) for t in ts)
    ts = trials(run_worker(tmp_path, "candidate", INTERNAL))
    assert ts and all(any("_DisableTorchDispatch" in c for c in t["internal_calls"]) for t in ts)


@pytest.mark.parametrize("code,writer", [(TORCH_WRITES_LAST, "torch:copy_"), (STALE, "none")])
def test_outputs_not_last_written_by_a_kernel(tmp_path, code, writer):
    ts = trials(run_worker(tmp_path, "candidate", code))
    assert ts[-1]["output_writers"] == [writer]


def test_forward_hooks_are_reported(tmp_path):
    for t in trials(run_worker(tmp_path, "candidate", HOOKED)):
        assert t["module_hooks"] == ["model.forward_hooks"]
