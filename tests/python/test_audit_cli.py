"""`tritonrl tasks list` and `tritonrl tasks audit` end to end: the C++ loader, the
runner process it drives, exit codes, and recovery from a task that hangs or kills the
runner. Needs the built binary ($TRITONRL_BIN, set by scripts/test.sh)."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TRITONRL_BIN", str(ROOT / "build" / "tritonrl"))
pytestmark = pytest.mark.skipif(not os.access(BIN, os.X_OK),
                                reason=f"tritonrl binary not built at {BIN}")

GOOD = textwrap.dedent("""
    import torch
    import torch.nn as nn
    n = 16
    class Model(nn.Module):
        def forward(self, x):
            return torch.sin(x) * 2.0
    def get_inputs():
        return [torch.randn(n, n)]
    def get_init_inputs():
        return []
""")


def tritonrl(*args, timeout=300):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "TRITONRL_PYTHON": sys.executable})


def test_list_reports_bad_files_and_still_lists_good_ones(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "nofn.py").write_text(GOOD.replace("def get_init_inputs", "def other"))
    (tmp_path / "syntax.py").write_text("import torch\nclass Model(:\n")
    p = tritonrl("tasks", "list", str(tmp_path))
    assert p.returncode == 1
    assert "good" in p.stdout and "1 tasks, 2 bad files" in p.stdout
    assert f"{tmp_path}/nofn.py:1: missing top-level `def get_init_inputs()`" in p.stderr
    assert f"{tmp_path}/syntax.py:2: SyntaxError:" in p.stderr
    j = json.loads(tritonrl("tasks", "list", "--json", str(tmp_path)).stdout)
    assert [t["id"] for t in j["tasks"]] == ["good"]
    assert j["tasks"][0]["variants"] == {"default": {}}
    assert len(j["errors"]) == 2
    assert tritonrl("tasks", "list", str(tmp_path / "missing")).returncode == 2


@pytest.mark.parametrize("jobs", [1, 3])
def test_audit_flags_degenerate_task_and_recovers_from_hang_and_crash(tmp_path, jobs):
    # With 3 jobs the hang, the crash and the task after the crash sit in different runners.
    (tmp_path / "a_good.py").write_text(GOOD)
    # ReLU of non-negative inputs is a no-op: dropping it passes (audit failure).
    (tmp_path / "b_relu.py").write_text(GOOD.replace("torch.sin(x) * 2.0", "torch.relu(x) * 2.0")
                                        .replace("torch.randn", "torch.rand") + "LEVEL = 2\n")
    # Ignores the runner's alarm and sleeps: only the parent's kill can stop it.
    (tmp_path / "c_hang.py").write_text(GOOD.replace(
        "return torch.sin(x) * 2.0",
        "import signal, time\n        signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "        time.sleep(120)\n        return x"))
    (tmp_path / "d_crash.py").write_text(GOOD.replace(
        "return torch.sin(x) * 2.0", "import os\n        os._exit(3)"))
    (tmp_path / "e_after.py").write_text(GOOD.replace("torch.sin", "torch.cos"))
    # 20 s per task: a timeout far above an honest task's audit on a busy 2-core runner, far below
    # the hang's 120 s sleep.
    p = tritonrl("tasks", "audit", str(tmp_path), "--json", "--timeout", "20", "--jobs", str(jobs))
    assert p.returncode == 1, p.stderr
    rows = json.loads(p.stdout)["results"]
    assert [r["task"] for r in rows] == ["a_good", "b_relu", "c_hang", "d_crash", "e_after"]
    res = {r["task"]: r for r in rows}
    assert res["a_good"]["status"] == "ok"
    assert res["b_relu"]["status"] == "fail"
    assert res["b_relu"]["passed_null_models"] == ["drop:0:aten.relu.default"]
    assert res["c_hang"]["status"] == "timeout" and "killed" in res["c_hang"]["error"]
    assert res["d_crash"]["status"] == "error" and "status 3" in res["d_crash"]["error"]
    assert res["e_after"]["status"] == "ok"  # the run resumed after the hang and the crash


def test_audit_text_output_and_variant_selection():
    p = tritonrl("tasks", "audit", str(ROOT / "tasks"), "--tasks",
                 "level2/1_LinearBiasReLU,level3/3_AttentionHead", "--variants", "small")
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [l.split() for l in p.stdout.splitlines()[1:-1]]
    assert [(l[0], l[1], l[2]) for l in lines] == [("level2/1_LinearBiasReLU", "small", "ok"),
                                                   ("level3/3_AttentionHead", "small", "ok")]
    assert tritonrl("tasks", "audit", str(ROOT / "tasks"), "--tasks", "nope").returncode == 2
    bad = subprocess.run([BIN, "tasks", "audit", str(ROOT / "tasks"), "--tasks", "level1/1_ReLU",
                          "--python", "/nonexistent/python"], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2
    assert "not an executable interpreter" in bad.stderr and "/nonexistent/python" in bad.stderr


@pytest.mark.parametrize("jobs", [1, 2])
def test_audit_retries_a_task_that_ran_out_of_memory_beside_others(tmp_path, jobs):
    # The first attempt leaves a marker and fails for want of memory (as when other runners
    # hold the GPU); with several jobs the task is audited again alone and passes.
    marker = tmp_path / "attempted"
    (tmp_path / "a_good.py").write_text(GOOD)
    (tmp_path / "b_oom.py").write_text(GOOD.replace(
        "return torch.sin(x) * 2.0",
        f"import pathlib\n        m = pathlib.Path({str(marker)!r})\n"
        "        if not m.exists():\n            m.write_text('1')\n"
        "            raise MemoryError('out of memory')\n"
        "        return torch.sin(x) * 2.0"))
    p = tritonrl("tasks", "audit", str(tmp_path), "--jobs", str(jobs))
    lines = [l.split() for l in p.stdout.splitlines()[1:-1]]
    assert [(l[0], l[2]) for l in lines if l[0] == "b_oom"] == [
        ("b_oom", "ok" if jobs > 1 else "error")], p.stdout
    assert ("a_good", "ok") in [(l[0], l[2]) for l in lines]
    assert p.returncode == (0 if jobs > 1 else 1)
