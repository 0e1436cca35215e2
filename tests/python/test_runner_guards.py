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
        # The audit's own time, by its clocks: some of the call's (the kernel body's calls run
        # under the monitor on the CPU path), never more than the call took.
        phase = t["phase_ms"]
        assert phase["audit_monitor"] > 0 and phase["audit_recorder"] > 0, phase
        assert phase["audit_monitor"] + phase["audit_recorder"] < phase["forward"], phase


def test_threads_cannot_start_after_the_import(tmp_path):
    frames = run_worker(tmp_path, "candidate", THREAD)
    err = [h for h, _ in frames if h["type"] == "error"]
    assert err and "can't start new thread" in err[0]["message"]


TENSOR_OF_LIST = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        n = torch.tensor([x.numel()])  # a short list of scalars: bookkeeping
        vals = torch.tensor([0.5] * 64)  # a list of host values
        return relu(x)
'''


def test_torch_tensor_of_a_long_list_is_host_compute(tmp_path):
    # The ATen audit's host-value count refuses the lift of 64 values inside torch.tensor itself
    # (tritonrl-eval/26), before the call monitor's own record of the list ends the call.
    frames = run_worker(tmp_path, "candidate", TENSOR_OF_LIST)
    err = [h for h, _ in frames if h["type"] == "error"]
    assert not trials(frames) and err and err[0]["exc_type"] == "HostComputeRefused", err
    assert "aten::lift_fresh: more than 16 Python numbers" in err[0]["message"], err


def test_host_compute_and_internals_are_reported(tmp_path):
    ts = trials(run_worker(tmp_path, "candidate", HOST))
    assert ts and all(any(c.startswith("Tensor.tolist") for c in t["host_calls"]) for t in ts)
    ts = trials(run_worker(tmp_path, "candidate", INTERNAL))
    assert ts and all(any("_DisableTorchDispatch" in c for c in t["internal_calls"]) for t in ts)


# The host-step count (guard._make_step_counter): loop iterations and function starts of the
# candidate's host code in a forward call, however they are spelled; a kernel body's own loop,
# which the interpreter runs as the candidate's Python, is the kernel's work and not counted.
HOST_STEPS = KERNEL + """
@triton.jit
def looping_relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for k in range(0, 500):  # 500 iterations in each program: kernel work
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

def twice(v, depth):
    return v if depth == 0 else twice(v + 1, depth - 1)

class ModelNew(nn.Module):
    def forward(self, x):
        acc = 0
        for i in range(300):  # 300 backward jumps
            acc += 1
        acc += sum([1 for _ in range(200)])  # an inlined comprehension: 200 more
        acc += twice(0, 99)  # 100 function starts
        y = torch.empty_like(x)
        looping_relu_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
        return y
"""


def test_host_steps_count_loops_and_calls_but_not_kernel_bodies(tmp_path):
    ts = trials(run_worker(tmp_path, "candidate", HOST_STEPS))
    assert ts
    for t in ts:
        [[steps, launches]] = t["host_steps"]
        # 300 + 200 + 100 counted, a few more for the loops' exits and the forward itself; the
        # kernel's 500 iterations in each of its programs are not (the test input has 2 programs).
        assert 600 <= steps < 620 and launches == 1, t["host_steps"]
    for t in trials(run_worker(tmp_path, "candidate", HONEST_VIEW)):
        [[steps, launches]] = t["host_steps"]
        assert steps < 10 and launches == 1, t["host_steps"]


# Issue 34: the writer is decided on the output's own bytes. A copy kernel over a torch result,
# a kernel writing only the buffer's padding, and a kernel's output converted by torch.
COPY_OF_TORCH = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        return relu(x.clamp(min=0))  # relu of a non-negative tensor: a verbatim copy
'''

PADDING_ONLY = KERNEL + '''
@triton.jit
def fill_kernel(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p + offs, tl.zeros([BLOCK], dtype=tl.float32) + 1.0, mask=offs < n)

class ModelNew(nn.Module):
    def forward(self, x):
        n = x.numel()
        buf = torch.empty(n + 16, dtype=x.dtype, device=x.device)
        out = buf[:n].view(x.shape)
        out.copy_(x.clamp(min=0))
        fill_kernel[(1,)](buf[n:], 16, BLOCK=16)
        return out
'''

KERNEL_THEN_CONVERTED = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        return relu(x.double()).float()
'''


# Per element (issue 34): in a storage torch put data in, every element must have changed since;
# a constant fill is initialisation; the call's inputs are never a launch's; a copy is a copy
# within the tolerance, through a chain of launches too.
SCALE = KERNEL + """
@triton.jit
def scale_kernel(src, dst, n, S: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m) * S, mask=m)
"""

NUDGED_ELEMENT = SCALE + """
class ModelNew(nn.Module):
    def forward(self, x):
        y = x.clamp(min=0)
        scale_kernel[(1,)](y, y, 1, S=1.00000095367431640625, BLOCK=16)
        return y
"""

INPUT_READ_THEN_CONVERTED = SCALE + """
class ModelNew(nn.Module):
    def forward(self, x):
        scratch = torch.empty(16, dtype=x.dtype, device=x.device)
        scale_kernel[(1,)](x, scratch, 1, S=1.0, BLOCK=16)
        y = torch.empty_like(x)
        y.copy_(x)
        return y
"""

NUDGED_COPY = SCALE + """
class ModelNew(nn.Module):
    def forward(self, x):
        t = x.clamp(min=0)
        y = torch.empty_like(t)
        scale_kernel[(triton.cdiv(t.numel(), 64),)](t, y, t.numel(), S=1.0000002384185791015625, BLOCK=64)
        return y
"""

COPY_CHAIN = SCALE + """
class ModelNew(nn.Module):
    def forward(self, x):
        t = x.clamp(min=0)
        u, y = torch.empty_like(t), torch.empty_like(t)
        scale_kernel[(triton.cdiv(t.numel(), 64),)](t, u, t.numel(), S=1.0000002384185791015625, BLOCK=64)
        scale_kernel[(triton.cdiv(t.numel(), 64),)](u, y, t.numel(), S=1.0, BLOCK=64)
        return y
"""

IN_PLACE_PARTIAL = KERNEL + """
class ModelNew(nn.Module):
    def forward(self, x):
        y = x.clone()
        relu_kernel[(triton.cdiv(y.numel(), 64),)](y, y, y.numel(), BLOCK=64)
        return y  # the positive elements are still clone's bytes
"""

ZERO_INIT_PARTIAL_STORE = KERNEL.replace("tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)",
                                         "v = tl.load(x_ptr + offs, mask=m, other=0.0)\n"
                                         "    tl.store(y_ptr + offs, v, mask=m & (v > 0))") + """
class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.zeros_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
        return y
"""

IN_PLACE_EVERY_ELEMENT = SCALE + """
class ModelNew(nn.Module):
    def forward(self, x):
        y = x.clone()
        scale_kernel[(triton.cdiv(y.numel(), 64),)](y, y, y.numel(), S=2.0, BLOCK=64)
        relu_kernel[(triton.cdiv(y.numel(), 64),)](y, y, y.numel(), BLOCK=64)
        return y  # 2 relu(x): no element is what clone wrote
"""


@pytest.mark.parametrize("code,writer", [(TORCH_WRITES_LAST, "torch:copy_"), (STALE, "none"),
                                         (COPY_OF_TORCH, "copy:torch:clamp"),
                                         (PADDING_ONLY, "torch:copy_"),
                                         (NUDGED_ELEMENT, "torch:clamp"),
                                         (INPUT_READ_THEN_CONVERTED, "torch:copy_"),
                                         (NUDGED_COPY, "copy:torch:clamp"),
                                         (COPY_CHAIN, "copy:torch:clamp"),
                                         (IN_PLACE_PARTIAL, "torch:clone")])
def test_outputs_not_last_written_by_a_kernel(tmp_path, code, writer):
    ts = trials(run_worker(tmp_path, "candidate", code))
    assert ts[-1]["output_writers"] == [writer]


@pytest.mark.parametrize("code", [KERNEL_THEN_CONVERTED, ZERO_INIT_PARTIAL_STORE, IN_PLACE_EVERY_ELEMENT])
def test_outputs_the_kernels_wrote(tmp_path, code):
    # A conversion of a kernel's output; a zero fill the kernel stored only some elements into;
    # an in-place kernel on a clone that changed every element.
    ts = trials(run_worker(tmp_path, "candidate", code))
    assert ts and all(t["output_writers"] == ["kernel"] for t in ts), [t["output_writers"] for t in ts]


def test_forward_hooks_are_reported(tmp_path):
    for t in trials(run_worker(tmp_path, "candidate", HOOKED)):
        assert t["module_hooks"] == ["model.forward_hooks"]


# A reader of our source reaches the worker's state without any call the monitor sees: a frame
# from an exception's traceback (the refusal is caught, so the record must stand on its own), an
# internal run by a builtin on the candidate's behalf, a store into one of the runner's classes,
# and the recorder's suppress counter through the closure of Triton's patched run method.
FRAME_VIA_TRACEBACK = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        try:
            try:
                raise ValueError
            except ValueError as e:
                e.__traceback__.tb_frame.f_back.f_locals["monitor"].forward = False
        except PermissionError:
            pass
        return relu(x)
'''

SORTED_KEY = KERNEL + '''
import os

class ModelNew(nn.Module):
    def forward(self, x):
        try:
            sorted(["."], key=os.listdir)
        except PermissionError:
            pass
        return relu(x)
'''

CLASS_REBIND = KERNEL + '''
import sys

class ModelNew(nn.Module):
    def forward(self, x):
        sys.modules["tritonrl_runner.hooks"].LaunchRecorder.output_writers = lambda self, outs: ["kernel"]
        return relu(x)
'''

# A module's name bound to an equal but other object (the recorder's behaviour unchanged), and a
# name deleted and bound again to the very same object: both are stores the monitor does not see,
# found by the namespace check at the next call.
MODULE_REBIND = KERNEL + '''
import sys

class ModelNew(nn.Module):
    def forward(self, x):
        h = sys.modules["tritonrl_runner.hooks"]
        h._ALLOC_OPS = frozenset(list(h._ALLOC_OPS))
        return relu(x)
'''

DELETE_REBIND = KERNEL + '''
import sys

class ModelNew(nn.Module):
    def forward(self, x):
        h = sys.modules["tritonrl_runner.hooks"]
        ops = h._ALLOC_OPS
        del h._ALLOC_OPS
        h._ALLOC_OPS = ops
        return relu(x)
'''

CLOSURE_SUPPRESS = KERNEL + '''
from triton.runtime.interpreter import InterpretedFunction

REC = next(c.cell_contents for c in InterpretedFunction.run.__closure__
           if type(c.cell_contents).__name__ == "LaunchRecorder")

class ModelNew(nn.Module):
    def forward(self, x):
        y = relu(x)
        REC.suppress += 1
        z = x * 2
        REC.suppress -= 1
        return y
'''


@pytest.mark.parametrize("code,field,expected", [
    (FRAME_VIA_TRACEBACK, "internal_calls", "object.__getattr__ tb_frame"),
    (SORTED_KEY, "internal_calls", "os.listdir"),
    (CLASS_REBIND, "internal_calls", "evaluator state rebound: tritonrl_runner.hooks.LaunchRecorder.output_writers"),
    (MODULE_REBIND, "internal_calls", "evaluator state rebound: tritonrl_runner.hooks._ALLOC_OPS"),
    (DELETE_REBIND, "internal_calls", "evaluator state rebound: tritonrl_runner.hooks.(a name deleted"),
    (CLOSURE_SUPPRESS, "forbidden_ops", "aten::mul"),
])
def test_state_reached_without_a_monitored_call_is_reported(tmp_path, code, field, expected):
    ts = trials(run_worker(tmp_path, "candidate", code))
    assert ts and all(any(c.startswith(expected) for c in t[field]) for t in ts), ts[0][field]
    assert all(t["output_writers"] == ["kernel"] for t in ts)  # the kernel did run: only the guard fails them


def test_a_refused_frame_ends_the_worker_as_internal_access(tmp_path):
    code = FRAME_VIA_TRACEBACK.replace("except PermissionError:\n            pass", "finally:\n            pass")
    frames = run_worker(tmp_path, "candidate", code)
    err = [h for h, _ in frames if h["type"] == "error"]
    assert err and err[0]["exc_type"] == "InternalAccessRefused" and "tb_frame" in err[0]["message"]


FLOAT_LOOP = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        flat = x.reshape(-1)
        buf = torch.empty_like(flat)
        for i in range(flat.numel()):
            v = float(flat[i])
            buf[i] = v if v > 0.0 else 0.0
        return relu(buf).reshape(x.shape)
'''

FLOAT_LOOP_CATCHING = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        flat = x.reshape(-1)
        got = []
        for i in range(flat.numel()):
            try:
                got.append(float(flat[i]))
            except Exception:
                pass
        assert len(got) == 16, len(got)  # the limit's worth, then every call is refused
        return relu(x)
'''


def test_a_per_element_host_loop_is_stopped_at_the_limit(tmp_path):
    # On a GPU each float() is a device sync: run to the end, such a loop met the stage's time
    # limit and the sample read as a timeout, not as the host compute it is.
    frames = run_worker(tmp_path, "candidate", FLOAT_LOOP)
    err = [h for h, _ in frames if h["type"] == "error"]
    assert not trials(frames) and err and err[0]["exc_type"] == "HostComputeRefused"
    assert "float(tensor) (per-element loop)" in err[0]["message"]


def test_a_caught_refusal_still_refuses_every_later_element_and_is_recorded(tmp_path):
    ts = trials(run_worker(tmp_path, "candidate", FLOAT_LOOP_CATCHING))
    assert ts and all(any("per-element loop" in c for c in t["host_calls"]) for t in ts), ts[:1]


# Issue 34: value reads C makes for the candidate's code fire no CALL event; the wrapped Tensor
# dunders count them like .item() calls (a list indexed by a 0-d tensor), and text of all the
# values (f"{x}", "%s" % x, format(x)) is host compute at once.
INDEX_LOOP_CATCHING = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        idx = torch.zeros(1, dtype=torch.int64)[0]
        table = [0.0, 1.0]
        got = []
        for _ in range(40):
            try:
                got.append(table[idx])
            except Exception:
                pass
        assert len(got) == 16, len(got)  # the limit's worth, then every read is refused
        return relu(x)
'''

TEXT_OF_VALUES = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        text = f"{x}"
        return relu(x)
'''


# Reads ATen makes itself (narrow given a 0-d tensor start calls _local_scalar_dense in C++): past
# the limit the ATen audit refuses them as guard.py refuses .item(); on the H100 such a loop ran to
# its end, one sync a row, and the sample timed out instead of reading as host compute.
NARROW_LOOP = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        start = torch.zeros((), dtype=torch.int64)
        for _ in range(40):
            x.narrow(0, start, 1)
        return relu(x)
'''

NARROW_LOOP_CATCHING = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        start = torch.zeros((), dtype=torch.int64)
        got = 0
        for _ in range(40):
            try:
                x.narrow(0, start, 1)
                got += 1
            except Exception:
                pass
        assert got == 16, got  # the limit's worth, then every read is refused
        return relu(x)
'''


def test_scalar_reads_inside_aten_are_refused_past_the_limit(tmp_path):
    frames = run_worker(tmp_path, "candidate", NARROW_LOOP)
    err = [h for h, _ in frames if h["type"] == "error"]
    assert not trials(frames) and err and err[0]["exc_type"] == "HostComputeRefused", err
    assert "aten::_local_scalar_dense" in err[0]["message"]
    ts = trials(run_worker(tmp_path, "candidate", NARROW_LOOP_CATCHING))
    assert ts and all(any("aten::_local_scalar_dense" in c for c in t["host_calls"]) for t in ts), ts[:1]


# The held-tensor rule (hooks.HeldWatch): a storage of more than 4,096 elements made by the import
# or the constructor and still held afterwards must be as large as one of the task Model's tensors.
LINEAR_TASK = """
import torch
import torch.nn as nn
rows = 4
VARIANTS = {"small": {"rows": 3}}
class Model(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.lin = nn.Linear(n_in, n_out)
    def forward(self, x):
        return torch.relu(self.lin(x))
def get_inputs():
    return [torch.randn(rows, 100)]
def get_init_inputs():
    return [100, 64]
"""

LINEAR_KERNEL = KERNEL.replace("import triton\n", "import triton\nimport torch.nn.functional as F\n")


def held(code):
    return LINEAR_KERNEL + '''
class ModelNew(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
%s
    def forward(self, x):
        return relu(torch.matmul(x, self.w) + self.b)
''' % code


HELD_WEIGHT_TRANSPOSED = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.zeros(n_out))
        scratch = torch.randn(50000) * 2.0  # made, then dropped: not held""")
HELD_TABLE_IN_CLOSURE = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.zeros(n_out))
        table = torch.randn(6401) * 2.0
        self.lookup = lambda: table""")


HELD_TABLE_IN_CHUNKS = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.zeros(n_out))
        self.chunks = [torch.randn(4096) * 2.0 for _ in range(8)]  # none over 4,096 elements""")


def build_frames(frames):
    return [h for h, _ in frames if h["type"] == "stage" and h.get("stage") == "build"]


def test_held_tensors_must_be_as_large_as_the_task_models(tmp_path):
    ok = build_frames(run_worker(tmp_path, "candidate", HELD_WEIGHT_TRANSPOSED, task_text=LINEAR_TASK))
    assert ok and all(b["held_tables"] == [] and b["forbidden_ops"] == [] for b in ok), ok
    bad = build_frames(run_worker(tmp_path, "candidate", HELD_TABLE_IN_CLOSURE, task_text=LINEAR_TASK))
    assert bad and all(any("6401 elements" in line for line in b["held_tables"]) for b in bad), bad
    # Eight storages of 4,096 fp32 elements (128 KiB) where the task's Linear allows 2 x 6,464 x 4
    # bytes plus 16 KiB: counted together, in bytes.
    split = build_frames(run_worker(tmp_path, "candidate", HELD_TABLE_IN_CHUNKS, task_text=LINEAR_TASK))
    assert split and all(any("bytes held after the constructor in 10 storages" in line for line in b["held_tables"])
                         for b in split), split


# The held-tensor rule on values (hooks._values_beyond_weights): what a storage of a size none of
# the task Model's tensors have may hold. Weights' values (a padded or concatenated copy) and
# constants are fine; a table of values made by products by numbers (an exponential
# on a grid, the eighth review's gap files) is not, however few bytes it takes.
HELD_WEIGHTS_PADDED_AND_AN_INDEX = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.zeros(n_out))
        self.w_head = torch.zeros(1000)
        self.w_head[:900].copy_(self.w.detach().reshape(-1)[:900])
        self.ones = torch.ones(300) * 0.5""")
HELD_EXP_GRID = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.zeros(n_out))
        e = torch.ones(1)
        for j in range(9):
            e = torch.cat([e, e * math.exp(-0.01 * 2 ** j)])
        self.grid = e""").replace("import torch\n", "import math\nimport torch\n", 1)


def test_held_values_beyond_the_weights_constants_and_an_index_are_a_table(tmp_path):
    ok = build_frames(run_worker(tmp_path, "candidate", HELD_WEIGHTS_PADDED_AND_AN_INDEX, task_text=LINEAR_TASK))
    assert ok and all(b["held_tables"] == [] and b["forbidden_ops"] == [] for b in ok), ok
    bad = build_frames(run_worker(tmp_path, "candidate", HELD_EXP_GRID, task_text=LINEAR_TASK))
    assert bad and all(any("values held after the constructor that are none of the task Model" in line for line in b["held_tables"])
                       for b in bad), bad
    # 512 values in 2 KiB: within the byte bound and the size rule, refused for what they are
    assert all(not any("bytes held" in line or "elements held" in line for line in b["held_tables"]) for b in bad)


# Since tritonrl-eval/35 the weights' values are the task Model's own (its tensors as the reference
# builds them, hooks.task_model_tensors) and storages of a Model tensor's size are judged too:
# a table in a storage as large as the Linear's weight (the thirteenth review) and weights drawn
# otherwise are other values; the weight scaled by one number is not, shifted it is.
HELD_TABLE_IN_WEIGHT_SIZED_STORAGE = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.zeros(n_out))
        e = torch.ones(1)
        for j in range(9):
            e = torch.cat([e, e * math.exp(-0.01 * 2 ** j)])
        self.grid = torch.zeros(n_in * n_out)
        self.grid[:512].copy_(e)""").replace("import torch\n", "import math\nimport torch\n", 1)
HELD_WEIGHTS_DRAWN_OTHERWISE = held("""        self.w = nn.Parameter(0.1 * torch.randn(n_in, n_out))
        self.b = nn.Parameter(torch.zeros(n_out))""")
HELD_WEIGHT_SCALED = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous() * 0.37)
        self.b = nn.Parameter(torch.zeros(n_out))""")


def test_held_values_are_judged_against_the_task_models_own_whatever_the_size(tmp_path):
    ok = build_frames(run_worker(tmp_path, "candidate", HELD_WEIGHT_SCALED, task_text=LINEAR_TASK))
    assert ok and all(b["held_tables"] == [] and b["forbidden_ops"] == [] for b in ok), ok
    for code in (HELD_TABLE_IN_WEIGHT_SIZED_STORAGE, HELD_WEIGHTS_DRAWN_OTHERWISE,
                 HELD_WEIGHT_SCALED.replace("* 0.37)", "* 0.37 + 0.01)")):
        bad = build_frames(run_worker(tmp_path, "candidate", code, task_text=LINEAR_TASK))
        assert bad and all(any("none of the task Model's values" in line for line in b["held_tables"])
                           for b in bad), (code, bad)


# Products and quotients in the constructor (hooks.CONSTRUCTOR_PRODUCT_OPS): with a number, as
# parameters are scaled, allowed; of two tensors (squaring a grid, dividing two tensors) they
# evaluate a function where no forward audit runs, and are refused.
PRODUCT_OF_TENSORS = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous() / 2.0)
        self.b = nn.Parameter(torch.zeros(n_out))
        g = torch.rand(64) * 0.5
        self.tab = (g * g) / (g + 1.0)""")
RECIPROCALS_OF_TENSORS = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.zeros(n_out))
        g = torch.rand(64) + 1.0
        one = torch.ones(())
        self.tab = torch.div(one, torch.div(one, g) - torch.div(one, g + 1.0))  # g * (g + 1)""")


def test_constructor_products_take_a_number_not_a_tensor(tmp_path):
    ok = build_frames(run_worker(tmp_path, "candidate", HELD_WEIGHT_TRANSPOSED.replace(
        ".contiguous())", ".contiguous() * 0.1 / 3.0)"), task_text=LINEAR_TASK))
    assert ok and all(b["forbidden_ops"] == [] for b in ok), ok
    bad = build_frames(run_worker(tmp_path, "candidate", PRODUCT_OF_TENSORS, task_text=LINEAR_TASK))
    assert bad and all(b["forbidden_ops"] == ["aten::div of two tensors", "aten::mul of two tensors"]
                       for b in bad), bad
    rec = build_frames(run_worker(tmp_path, "candidate", RECIPROCALS_OF_TENSORS, task_text=LINEAR_TASK))
    assert rec and all(b["forbidden_ops"] == ["aten::div of two tensors"] for b in rec), rec


# Host values (hooks.HostValues): Python numbers put into tensors, at most 16 in the import and
# constructor together and in one forward call; a table counts per entry, even of repeated digits.
HOST_TABLE_IN_CONSTRUCTOR = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.zeros(n_out))
        self.tab = torch.tensor([i % 4 for i in range(64)])  # 2-bit digits: 4 distinct values""")
HOST_WRITES_IN_CONSTRUCTOR = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.zeros(n_out))
        self.tab = torch.zeros(40)
        for i in range(40):
            self.tab[i].fill_(i % 2)  # one entry a write""")
HOST_CONSTANTS_IN_CONSTRUCTOR = held("""        self.w = nn.Parameter(nn.Linear(n_in, n_out).weight.detach().t().contiguous())
        self.b = nn.Parameter(torch.full((n_out,), 0.5))
        self.mix = torch.tensor([0.299, 0.587, 0.114]) + 1.0
        self.eps = 1e-5""")

HOST_TABLE_IN_FORWARD = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        if not hasattr(self, "tab"):
            self.tab = torch.empty(40)
            for i in range(40):
                self.tab[i] = i * 0.25  # lifts one number a write
        return relu(x)
'''


def test_host_values_past_the_limit_are_a_table(tmp_path):
    ok = build_frames(run_worker(tmp_path, "candidate", HOST_CONSTANTS_IN_CONSTRUCTOR, task_text=LINEAR_TASK))
    assert ok and all(b["held_tables"] == [] for b in ok), ok
    bad = build_frames(run_worker(tmp_path, "candidate", HOST_TABLE_IN_CONSTRUCTOR, task_text=LINEAR_TASK))
    assert bad and all(any("more than 16 Python numbers" in line for line in b["held_tables"])
                       for b in bad), bad
    bad = build_frames(run_worker(tmp_path, "candidate", HOST_WRITES_IN_CONSTRUCTOR, task_text=LINEAR_TASK))
    assert bad and all(any("more than 16 Python numbers" in line for line in b["held_tables"])
                       for b in bad), bad
    frames = run_worker(tmp_path, "candidate", HOST_TABLE_IN_FORWARD)
    err = [h for h, _ in frames if h["type"] == "error"]
    assert not trials(frames) and err and err[0]["exc_type"] == "HostComputeRefused", err
    assert "aten::lift_fresh: more than 16 Python numbers" in err[0]["message"], err


# Launch arguments (hooks.check_launch_arguments): what Triton's compiled path takes, and a few
# numbers in tuples. The activation is a parameter the kernel calls.
ACT_KERNEL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def jit_relu(v):
    return tl.maximum(v, 0.0)

@triton.jit
def act_kernel(x_ptr, y_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, ACT(tl.load(x_ptr + offs, mask=m)), mask=m)

def host_relu(v):
    return v  # would run on the host under the interpreter
'''


def act_model(act):
    return ACT_KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        act_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), %s, BLOCK=64)
        return y
''' % act


FLOAT_ARGS_TABLE = KERNEL + '''
@triton.jit
def put_kernel(tab_ptr, i, v):
    tl.store(tab_ptr + i, v)

class ModelNew(nn.Module):
    def forward(self, x):
        tab = torch.empty(20)
        for i in range(20):
            put_kernel[(1,)](tab, i, i * 0.25 + 0.125)  # a float argument a launch
        return relu(x)
'''
FLOAT_ARGS_REPEATED = FLOAT_ARGS_TABLE.replace("i * 0.25 + 0.125", "0.5")


DEFAULT_HELPER = KERNEL + '''
def host_relu(v):
    return v  # would run on the host under the interpreter

@triton.jit
def act_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, ACT: tl.constexpr = host_relu):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, ACT(tl.load(x_ptr + offs, mask=m)), mask=m)
'''
DEFAULT_HELPER += '''
class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        act_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
        return y
'''


def test_a_parameters_default_is_a_launch_argument(tmp_path):
    frames = run_worker(tmp_path, "candidate", DEFAULT_HELPER)
    err = [h for h, _ in frames if h["type"] == "error"]
    assert not trials(frames) and err and err[0]["exc_type"] == "KernelArgumentRefused", err


def test_float_launch_arguments_are_host_values(tmp_path):
    frames = run_worker(tmp_path, "candidate", FLOAT_ARGS_TABLE)
    err = [h for h, _ in frames if h["type"] == "error"]
    assert not trials(frames) and err and err[0]["exc_type"] == "HostComputeRefused", err
    assert "kernel launches' float arguments" in err[0]["message"], err
    # One constant in twenty launches is one host value; ints (i) are not counted.
    assert trials(run_worker(tmp_path, "candidate", FLOAT_ARGS_REPEATED))


def test_launch_arguments_are_what_the_compiled_path_takes(tmp_path):
    for t in trials(run_worker(tmp_path, "candidate", act_model("jit_relu"))):
        assert t["host_calls"] == [], t
    assert trials(run_worker(tmp_path, "candidate", act_model("jit_relu"))), "the jit function runs"
    for act, why in (("host_relu", "of type function"), ("tl.constexpr(host_relu)", "of type function"),
                     ("(jit_relu, tuple(float(i) for i in range(17)))", "more than 16 numbers"),
                     ("(jit_relu, '0' * 65)", "string of more than 64 characters")):
        frames = run_worker(tmp_path, "candidate", act_model(act))
        err = [h for h, _ in frames if h["type"] == "error"]
        assert not trials(frames) and err and err[0]["exc_type"] == "KernelArgumentRefused", (act, err)
        assert err[0].get("triton_refused") is True and why in err[0]["message"], (act, err)


def test_value_reads_from_c_are_counted_like_items(tmp_path):
    ts = trials(run_worker(tmp_path, "candidate", INDEX_LOOP_CATCHING))
    assert ts and all(any("Tensor.__index__ (per-element loop)" in c for c in t["host_calls"]) for t in ts), ts[:1]


def test_text_of_a_tensors_values_is_host_compute(tmp_path):
    ts = trials(run_worker(tmp_path, "candidate", TEXT_OF_VALUES))
    assert ts and all(any("Tensor.__format__ (every value as text)" in c for c in t["host_calls"])
                      for t in ts), ts[:1]
    # An honest candidate's trials stay clean with the dunders wrapped (torch's own reads are
    # trusted).
    for t in trials(run_worker(tmp_path, "candidate", HONEST_VIEW)):
        assert t["host_calls"] == [] and t["hooks_intact"], t


# The import's and the constructor's host steps are counted as a call's (a table computed there
# serves every call): the stage frames carry them.
CTOR_STEPS = KERNEL + """
ACC = 0
for _i in range(120):  # 120 steps while the file is imported
    ACC += 1

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        acc = 0
        for i in range(300):  # 300 steps in the constructor
            acc += 1
        self.acc = acc

    def forward(self, x):
        return relu(x)
"""


def test_import_and_constructor_host_steps_are_reported(tmp_path):
    frames = run_worker(tmp_path, "candidate", CTOR_STEPS)
    stages = {h["stage"]: h for h, _ in frames if h["type"] == "stage"}
    [[steps, launches]] = stages["import"]["host_steps"]
    assert 120 <= steps < 130 and launches == 0, stages["import"]
    [[steps, launches]] = stages["build"]["host_steps"]
    assert 300 <= steps < 310 and launches == 0, stages["build"]
    for t in trials(frames):  # the constructor's steps are not the call's
        [[steps, _]] = t["host_steps"]
        assert steps < 10, t["host_steps"]


# A product by a one-element (or 0-d) tensor in the constructor is a product of two tensors: a
# Python number reaches the dispatcher as a number (hacks/hc6_ctor_one_element_tensor_products_tanh).
CTOR_ONE_ELEMENT = KERNEL + """
class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        e = torch.ones(8)
        r = torch.full((1,), 0.5)
        e[1:].mul_(r)
        self.scale = 0.5 * torch.ones(4)  # a number: allowed

    def forward(self, x):
        return relu(x)
"""


def test_constructor_products_by_one_element_tensors_are_forbidden(tmp_path):
    frames = run_worker(tmp_path, "candidate", CTOR_ONE_ELEMENT)
    [build] = [h for h, _ in frames if h["type"] == "stage" and h["stage"] == "build"]
    assert build["forbidden_ops"] == ["aten::mul_ of two tensors"], build


def test_the_dict_watcher_counts_every_change_to_the_dicts_it_watches():
    """The namespace check compares only after the watcher counted a change (guard.py,
    _DictWatcher): every kind of store must count, in a module's dict and behind a class's
    mappingproxy, and a dict it does not watch must not. (CPython skips the event for a store of
    the object already bound, which changes nothing the check compares.)"""
    import types

    from tritonrl_runner import guard

    watcher = guard._DictWatcher.shared()
    assert watcher is not None and guard._DictWatcher.shared() is watcher
    module = types.ModuleType("watched")
    module.a = 1

    class Watched:
        b = 2

    assert watcher.watch(vars(module)) and watcher.watch(vars(Watched))
    other = types.ModuleType("unwatched")
    steps = [
        lambda: setattr(module, "a", 2),
        lambda: setattr(module, "c", 3),
        lambda: delattr(module, "c"),
        lambda: vars(module).update(d=4),
        lambda: vars(module).pop("d"),
        lambda: exec("global a\na = 5", vars(module)),  # STORE_GLOBAL in the module's own code
        lambda: setattr(Watched, "b", 3),
        lambda: delattr(Watched, "b"),
    ]
    for step in steps:
        before = watcher.changes[0]
        step()
        assert watcher.changes[0] > before, step
    before = watcher.changes[0]
    other.x = 1
    vars(other).clear()
    assert watcher.changes[0] == before
