"""Every honest kernel in tests/corpus/legit/ really computes its anchor task: import it, build
ModelNew, run forward through the Triton CPU interpreter on small inputs, compare with the torch
reference written here from the anchor-task definitions (the shared contract)."""
import importlib.util
import os
import pathlib

os.environ["TRITON_INTERPRET"] = "1"

import time  # noqa: E402

import json  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes  # noqa: E402
from triton.runtime import interpreter  # noqa: E402
from triton.runtime import autotuner  # noqa: E402

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "corpus"
ALLOWLIST = pathlib.Path(__file__).resolve().parents[2] / "src" / "verify" / "allowlist.json"
ALLOWED_ATEN = set(json.loads(ALLOWLIST.read_text())["aten_ops"])


class AtenRecorder(TorchDispatchMode):
    """Records the ATen overload packets dispatched while active (what the runtime audit sees)."""

    def __init__(self):
        super().__init__()
        self.ops = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.add("aten::" + func._overloadpacket.__name__)
        return func(*args, **(kwargs or {}))


def _header(path):
    fields = {}
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line[1:].partition(":")
        fields[key.strip()] = value.strip()
    return fields


# Anchor tasks at small sizes: (inputs factory, init args, reference forward).
def _relu_case():
    return [torch.randn(7, 300)], [], lambda m, x: torch.relu(x)


def _add_case():
    return [torch.randn(9, 200), torch.randn(200)], [], lambda m, a, b: a + b


def _softmax_case():
    return [torch.randn(6, 333) * 4], [], lambda m, x: torch.softmax(x, dim=1)


def _rowsum_case():
    return [torch.randn(5, 777)], [], lambda m, x: torch.sum(x, dim=1)


def _matmul_case():
    return [torch.randn(40, 70), torch.randn(70, 50)], [], lambda m, a, b: torch.matmul(a, b)


def _linear_case():
    def ref(init, x):
        torch.manual_seed(1234)
        lin = torch.nn.Linear(*init)
        return torch.relu(lin(x))

    return [torch.randn(12, 48)], [48, 40], ref


SUITE = pathlib.Path(__file__).resolve().parents[2] / "tasks"


def _suite_case(task_id):
    """Any other task of the built-in suite, from its own module at its small variant (the
    reference built with the seed the candidate's ModelNew is built with)."""
    import sys

    sys.path.insert(0, str(SUITE.parent / "python"))
    from tritonrl_runner import taskmod

    task = taskmod.load_module(SUITE / f"{task_id}.py", register=False)
    taskmod.apply_variant(task, "small")
    inputs = taskmod.make_inputs(task, 0)
    init = taskmod.init_inputs(task, 0)

    def ref(init_args, *xs):
        return taskmod.build_model(task.Model, init_args, 1234)(*xs)

    return inputs, init, ref


def _case(task_id):
    return CASES[task_id]() if task_id in CASES else _suite_case(task_id)


CASES = {
    "level1/1_ReLU": _relu_case,
    "level1/2_AddBroadcast": _add_case,
    "level1/3_Softmax": _softmax_case,
    "level1/4_RowSum": _rowsum_case,
    "level1/5_Matmul": _matmul_case,
    "level2/1_LinearBiasReLU": _linear_case,
}

# The CPU interpreter has no libdevice; these run only on the GPU script's machine.
GPU_ONLY = {"relu_libdevice.py"}



def _cpu_benchmarker(fn, quantiles=None, **_):
    # Without a GPU the interpreter has no active driver, so triton.autotune cannot get its
    # benchmarker; time each config once on the host clock instead (any choice is correct).
    start = time.perf_counter()
    fn()
    ms = (time.perf_counter() - start) * 1e3
    return [ms] * len(quantiles) if quantiles else ms


@pytest.fixture(autouse=True)
def _autotune_on_cpu(monkeypatch):
    monkeypatch.setattr(autotuner.Autotuner, "do_bench", property(lambda self: _cpu_benchmarker))


@pytest.fixture(autouse=True)
def _audit_outside_kernels(monkeypatch):
    # The interpreter moves tensors through torch (set_, clone) inside a launch; on a GPU the
    # launch dispatches nothing, so hide the launch itself from the recorder.
    original = interpreter.GridExecutor.__call__

    def call(self, *args, **kwargs):
        with _disable_current_modes():
            return original(self, *args, **kwargs)

    monkeypatch.setattr(interpreter.GridExecutor, "__call__", call)


LEGIT = sorted((CORPUS / "legit").glob("*.py"))


def test_corpus_size_and_headers():
    assert len(LEGIT) >= 40
    for path in LEGIT:
        h = _header(path)
        assert h.get("corpus") == "legit", path.name
        assert h.get("task") in CASES or (SUITE / f"{h.get('task')}.py").is_file(), path.name
        assert h.get("expect") == "correct", path.name
        assert h.get("what"), path.name


def _load(path):
    spec = importlib.util.spec_from_file_location("legit_" + path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("path", [p for p in LEGIT if p.name not in GPU_ONLY], ids=lambda p: p.stem)
def test_legit_kernel_matches_reference(path):
    task = _header(path)["task"]
    torch.manual_seed(0)
    inputs, init, ref = _case(task)
    mod = _load(path)
    torch.manual_seed(1234)
    model = mod.ModelNew(*init)
    with torch.no_grad():
        recorder = AtenRecorder()
        with recorder:
            got = model(*[t.clone() for t in inputs])
        want = ref(init, *inputs)
    # The shared allowlist must cover every ATen op an honest forward dispatches.
    assert recorder.ops <= ALLOWED_ATEN, sorted(recorder.ops - ALLOWED_ATEN)
    assert isinstance(got, torch.Tensor)
    assert got.shape == want.shape and got.dtype == want.dtype
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
