"""python -m tritonrl_runner.audit: degenerate tasks are caught, sound ones pass.

Each case is a small task file with one known defect; the audit must name the null model
that passes (or the failed reference check). Runs the real runner module in a subprocess
with the real torch, as `tritonrl tasks audit` does."""
import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def task(forward, inputs, init="[]", ctor="", extra="", body=None):
    return HEAD + extra + textwrap.dedent(f"""
class Model(nn.Module):
    def __init__(self{', ' if ctor else ''}{ctor}):
        super().__init__()
{textwrap.indent(textwrap.dedent(body or init_body(ctor)), '        ')}
    def forward(self, *xs):
{textwrap.indent(textwrap.dedent(forward).strip(), '        ')}

def get_inputs():
    return {inputs}

def get_init_inputs():
    return {init}
""")


def init_body(ctor):
    return "self.linear = nn.Linear(n, n)\n" if ctor == "n" else "pass\n"


# a Linear, then a BatchNorm1d left in training mode (as in KernelBench)
LINEAR_BN = "self.linear = nn.Linear(n, n)\nself.bn = nn.BatchNorm1d(n)\n"


CASES = {
    # name: (source, level, expected passing null models (substrings), expected failed checks)
    "sound": (task("x, = xs\nreturn torch.tanh(self.linear(x)) * 2.0",
                   "[torch.randn(8, 32)]", "[32]", "n"), 2, [], []),
    # KernelBench issue #165: zeros pass allclose alone; the relative L2 bound rejects them
    "tiny_outputs": (task("x, = xs\nreturn torch.softmax(x, dim=1)",
                          "[torch.randn(4, 100000)]", extra="ATOL = RTOL = 1e-2\n"), 1, [], []),
    "relu_on_nonnegative": (task("x, = xs\nreturn torch.relu(x) * 3.0",
                                 "[torch.rand(8, 64)]"), 2, ["drop:0:aten.relu"], []),
    "near_identity": (task("x, = xs\nreturn x + 1e-7 * torch.sin(x)",
                           "[torch.randn(8, 64)]"), 1, ["passthrough:0"], []),
    "softmax_after_mean": (task("x, = xs\nreturn torch.softmax(x.mean(dim=1, keepdim=True), dim=1)",
                                "[torch.randn(8, 64)]"), 2, ["mean"], ["not_constant", "input_sensitive"]),
    "input_independent": (task("x, = xs\nreturn torch.ones(8, 4) * 2.0 + 0 * x.sum()",
                               "[torch.randn(8, 4)]"), 1, ["mean"], ["not_constant", "input_sensitive"]),
    "random_forward": (task("x, = xs\nreturn x * torch.rand_like(x)",
                            "[torch.randn(64, 64)]"), 1, [], ["deterministic"]),
    "inactive_clamp": (task("x, = xs\nreturn torch.clamp(x, -10.0, 10.0) * 2 + x",
                            "[torch.randn(16, 16)]"), 2, ["drop:0:aten.clamp"], []),
    # KernelBench level1/95_CrossEntropyLoss pattern: a scalar that barely depends on the inputs
    "concentrated_scalar": (task("x, y = xs\nreturn ((x - y) ** 2).mean()",
                                 "[torch.rand(1000, 1000), torch.rand(1000, 1000)]",
                                 extra="ATOL = RTOL = 1e-2\n"), 1, [], ["input_sensitive"]),
    "nan_output": (task("x, = xs\nreturn torch.log(x)", "[torch.randn(16, 16)]"), 1, [], ["finite"]),
    # BatchNorm in training mode bumps num_batches_tracked (aten.add_), which reaches no
    # output: a dead op, not dropped; before the liveness analysis drop:1 passed and the task
    # (KernelBench level2/33_Gemm_Scale_BatchNorm and ten more) audited "fail"
    "batchnorm_training": (task("x, = xs\nreturn self.bn(self.linear(x)) * 2.0",
                                "[torch.randn(16, 32)]", "[32]", "n", body=LINEAR_BN), 2, [], []),
    # ... while a live op that does nothing (ReLU of a sigmoid) is still caught beside it
    "relu_after_batchnorm": (task("x, = xs\nreturn torch.relu(torch.sigmoid(self.bn(self.linear(x))))",
                                  "[torch.randn(16, 32)]", "[32]", "n", body=LINEAR_BN), 2,
                             ["drop:4:aten.relu"], []),
    # a result nobody reads is dead too
    "discarded_result": (task("x, = xs\ny = torch.exp(x)\nreturn torch.tanh(x) * 2.0",
                              "[torch.randn(8, 64)]"), 2, [], []),
    # data that leaves tensors (.item() into control flow, .tolist() into a new tensor) keeps
    # the ops it came from live: their ineffectiveness here is the task's, and shows
    "read_through_item": (task("x, = xs\ns = torch.exp(x).sum().item()\nreturn x * 2.0 if s == s else x",
                               "[torch.randn(8, 64)]"), 2, ["drop:0:aten.exp"], []),
    "read_through_tolist": (task("x, = xs\nc = torch.tensor(torch.exp(x).tolist())\n"
                                 "return x * 2.0 + c * 0.0", "[torch.randn(8, 64)]"), 2,
                            ["drop:0:aten.exp"], []),
}

DEAD_OPS = {"batchnorm_training": ["1:aten.add_.Tensor"],
            "relu_after_batchnorm": ["1:aten.add_.Tensor"],
            "discarded_result": ["0:aten.exp.default"]}


def run_audit(tmp_path, files, variants=(), timeout=60):
    tasks = []
    for name, (src, level) in files.items():
        p = tmp_path / f"{name}.py"
        p.write_text(src)
        tasks.append({"id": name, "path": str(p), "level": level})
    req = {"tasks": tasks, "variants": list(variants), "device": "cpu", "timeout_s": timeout}
    proc = subprocess.run([sys.executable, "-m", "tritonrl_runner.audit"], input=json.dumps(req),
                          capture_output=True, text=True, cwd=ROOT / "python", timeout=600)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    return {e["task"]: e for e in events if e["event"] == "result"}, events


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    files = {name: (src, level) for name, (src, level, _, _) in CASES.items()}
    res, _ = run_audit(tmp_path_factory.mktemp("audit"), files)
    return res


@pytest.mark.parametrize("name", list(CASES))
def test_degenerate_task_is_flagged(results, name):
    _, _, want_nulls, want_checks = CASES[name]
    r = results[name]
    assert r["variant"] == "default"
    passed = r["passed_null_models"]
    for want in want_nulls:
        assert any(p.startswith(want) for p in passed), (want, passed)
    if not want_nulls:
        assert passed == []
    assert sorted(r["failed_checks"]) == sorted(want_checks)
    weak = r["passed_null_models_allclose"]
    expect = "fail" if want_nulls or want_checks else ("weak" if weak else "ok")
    assert r["status"] == expect


def test_allclose_only_passes_are_reported_as_weak(results):
    r = results["tiny_outputs"]
    assert r["status"] == "weak"
    assert r["passed_null_models_allclose"][:2] == ["zeros", "mean"]
    assert results["sound"]["passed_null_models_allclose"] == []


def test_sound_task_tries_every_null_model(results):
    names = [n["name"] for n in results["sound"]["null_models"]]
    assert names[:2] == ["zeros", "mean"]
    assert "zeroed_inputs" in names
    # linear (addmm: output shape differs from its first argument, not droppable), tanh, mul
    assert results["sound"]["compute_ops"] == ["aten.addmm.default", "aten.tanh.default",
                                               "aten.mul.Tensor"]
    assert [n for n in names if n.startswith("drop:")] == ["drop:1:aten.tanh.default",
                                                           "drop:2:aten.mul.Tensor"]


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c[1] >= 2])
def test_dead_ops_are_listed_and_not_dropped(results, name):
    r = results[name]
    assert r["dead_ops"] == DEAD_OPS.get(name, []), r["dead_ops"]
    tried = [n["name"] for n in r["null_models"]]
    for dead in r["dead_ops"]:
        k, op = dead.split(":", 1)
        assert r["compute_ops"][int(k)] == op
        assert f"drop:{dead}" not in tried, tried
    if name == "relu_after_batchnorm":  # the live ops after the dead one are still tried
        assert "drop:3:aten.sigmoid.default" in tried


def test_eps_ops_are_not_dropped(tmp_path):
    src = task("x, = xs\nreturn x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)",
               "[torch.randn(8, 64)]")
    res, _ = run_audit(tmp_path, {"rms": (src, 2)})
    r = res["rms"]
    assert r["status"] == "ok", r
    assert r["eps_ops"] == ["aten.add.Tensor"] or r["eps_ops"] == ["aten.add.Scalar"], r["eps_ops"]


def test_variants_errors_and_timeouts(tmp_path):
    with_variants = HEAD + textwrap.dedent("""
    VARIANTS = {"small": {"n": 4}, "medium": {"n": 8}}
    n = 8
    class Model(nn.Module):
        def forward(self, x):
            return torch.sin(x) + x
    def get_inputs():
        return [torch.randn(n, n)]
    def get_init_inputs():
        return []
    """)
    slow = HEAD + textwrap.dedent("""
    import time
    class Model(nn.Module):
        def forward(self, x):
            time.sleep(30)
            return x
    def get_inputs():
        return [torch.randn(2)]
    def get_init_inputs():
        return []
    """)
    broken = HEAD + "class Model(nn.Module):\n    pass\n"
    files = {"v": (with_variants, 1), "slow": (slow, 1), "broken": (broken, 1)}
    _, events = run_audit(tmp_path, files, variants=("small", "large"), timeout=2)
    by = {}
    for e in events:
        if e["event"] == "result":
            by.setdefault(e["task"], []).append(e)
    assert [(r["variant"], r["status"]) for r in by["v"]] == [("small", "ok"), ("large", "skipped")]
    assert by["v"][0]["output_shapes"] == [[4, 4]]
    assert [r["status"] for r in by["slow"]] == ["timeout"]
    assert by["broken"][0]["status"] == "error"
    assert "get_inputs" in by["broken"][0]["error"]
    # every task is bracketed by begin/end, in order, even after a timeout or an error
    marks = [(e["event"], e["task"]) for e in events if e["event"] != "result"]
    assert marks == [("begin", "v"), ("end", "v"), ("begin", "slow"), ("end", "slow"),
                     ("begin", "broken"), ("end", "broken")]
