"""bench/train/lora_bench.sh at toy size on the CPU (plumbing, not speed): the three parts on the toy
shape write one record each run and the three tables; a second call skips every finished run; a call
past its deadline names the runs left. sft_gpu.py measure tells out of memory, a timeout and a
command that cannot start apart from a plain error."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITONRL_BUILD_DIR", os.path.join(ROOT, "build"))
TRITONRL = os.path.join(BUILD, "tritonrl")
SCRIPT = os.path.join(ROOT, "bench", "train", "lora_bench.sh")
SFT_GPU = os.path.join(ROOT, "bench", "train", "sft_gpu.py")

pytest.importorskip("peft")
pytest.importorskip("transformers")
pytestmark = pytest.mark.skipif(
    not os.access(TRITONRL, os.X_OK)
    or subprocess.run([TRITONRL, "train", "grpo", "--help"], capture_output=True).returncode != 0,
    reason="needs tritonrl built with libtorch (train sft, train grpo)")

TOY = dict(DEVICE="cpu", SHAPE="toy", T="64", B="2", STEPS="4", GRPO_TASKS="1", GRPO_G="2", GRPO_NEW="8",
           JOBS="1", FIT_SHAPES="toy", FIT_T="64", FIT_STEPS="2", SFT_CKPT="0")


def bench(tmp, out, **extra):
    env = dict(os.environ, BIN=BUILD, OUT=str(out), WORK=str(tmp / "work"), PYTHON=sys.executable, **TOY, **extra)
    r = subprocess.run(["bash", SCRIPT], env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lora_bench")
    return tmp, bench(tmp, tmp / "out1"), bench(tmp, tmp / "out2")


def test_every_run_recorded(runs):
    tmp, _, _ = runs
    recs = [json.loads(l) for l in open(tmp / "out1" / "lora_results.jsonl")]
    keys = [r["key"].split(":")[:2] for r in recs]
    assert keys == [["sft", "ours"], ["sft", "peft"], ["grpo", "toy"], ["fit", "toy"], ["fit", "toy"],
                    ["fit", "toy"], ["fit", "toy"]]
    assert all(r["status"] == "ok" and r["peak_rss_mib"] > 0 for r in recs)
    assert recs[0]["tokens_per_s"] > 0 and recs[1]["tokens_per_s"] > 0
    assert recs[1]["adapter_dtypes"] == ["torch.float32"] and recs[1]["base_dtype"] == "torch.bfloat16"
    step = recs[2]["grpo"][0]
    assert step["updated"] and step["gen_seconds"] > 0 and step["update_seconds"] > 0  # --no-filter: a backward


def test_tables(runs):
    tmp, first, _ = runs
    summary = open(tmp / "out1" / "lora_summary.md").read()
    for heading in ("### LoRA SFT", "### One GRPO step with LoRA", "### What fits"):
        assert heading in summary and heading in first
    assert "tritonrl / PEFT tokens/s" in summary
    fit = summary[summary.index("### What fits"):].splitlines()
    assert fit[2].split("|")[3:7] == [" lora+ckpt ", " lora ", " full+ckpt ", " full "]
    assert fit[4].startswith("| toy | 0.2M |") and "OOM" not in fit[4]


def test_second_call_skips_finished_runs(runs):
    _, _, second = runs
    assert second.count("done before:") == 7
    assert '"status"' not in second  # no run measured again


def test_deadline_leaves_runs_for_the_next_call(tmp_path):
    out = bench(tmp_path, tmp_path / "out", PART="fit", DEADLINE="1")
    assert "left for the next call" in out and "fit:toy:full" in out


def measure(tmp, *cmd, timeout=60):
    res = tmp / "r.jsonl"
    subprocess.run([sys.executable, SFT_GPU, "measure", "--key", "k", "--results", str(res), "--log",
                    str(tmp / "log"), "--timeout", str(timeout), "--", *cmd], check=True, capture_output=True)
    return [json.loads(l) for l in open(res)][-1]


def test_measure_statuses(tmp_path):
    oom = "print('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'); raise SystemExit(1)"
    assert measure(tmp_path, sys.executable, "-c", oom)["status"] == "oom"
    assert measure(tmp_path, sys.executable, "-c", "raise SystemExit(2)")["status"] == "error"
    assert measure(tmp_path, "sleep", "30", timeout=1)["status"] == "timeout"
    assert measure(tmp_path, str(tmp_path / "missing"))["status"] == "not started"
    r = subprocess.run([sys.executable, SFT_GPU, "done", str(tmp_path / "r.jsonl"), "k"])
    assert r.returncode == 1  # the last record of k did not start: run it again
