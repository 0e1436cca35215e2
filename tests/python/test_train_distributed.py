"""Data-parallel SFT through c10d/Gloo on the CPU (docs/distributed.md): two
ranks started torchrun-style, each running half of every step's micro-batches,
end with the parameters of one rank running them all; a rank that is killed or
stops answering makes the other exit non-zero with a message naming the
distributed operation, within the configured deadline."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import torch

from test_train_sft import TRITONRL, read_safetensors, write_jsonl

pytestmark = pytest.mark.skipif(not os.path.exists(TRITONRL), reason="needs the built CLI")

# Short runs: small records of varied length, a few per micro-batch.
ARGS = ["--model", "builtin:tiny", "--max-tokens", 512, "--batch-tokens", 512, "--lr", 3e-3, "--warmup", 3,
        "--seed", 1]


def small_data(tmp_path):
    recs = [{"prompt": f"Write a kernel that adds {i} to every element" + " of x" * (i % 5),
             "completion": f"<think>one pass</think>\n```python\ny = x + {i}\n```" + " # ok" * (i % 3)}
            for i in range(24)]
    write_jsonl(tmp_path / "train.jsonl", recs)
    return tmp_path / "train.jsonl"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_env(rank, world, port, timeout_s=120):
    env = dict(os.environ)
    env.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(port), TRITONRL_DIST_TIMEOUT_S=str(timeout_s))
    return env


def start(args, env):
    cmd = [TRITONRL, "train", "sft", "--device", "cpu", "--no-progress", *map(str, args)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def losses(out):
    return [json.loads(l) for l in open(os.path.join(out, "metrics.jsonl")) if '"loss"' in l]


@pytest.mark.parametrize("grad_accum", [2, 4])
def test_two_ranks_equal_one_rank_with_the_whole_batch(tmp_path, grad_accum):
    data = small_data(tmp_path)
    args = [*ARGS, "--data", data, "--steps", 4, "--grad-accum", grad_accum]
    one = start([*args, "--out", tmp_path / "one"], {k: v for k, v in os.environ.items()
                                                     if k not in ("WORLD_SIZE", "RANK")})
    out1, err1 = one.communicate(timeout=600)
    assert one.returncode == 0, err1

    port = free_port()
    ranks = [start([*args, "--out", tmp_path / f"dp{r}"], rank_env(r, 2, port)) for r in range(2)]
    results = [p.communicate(timeout=600) for p in ranks]
    for p, (_, err) in zip(ranks, results):
        assert p.returncode == 0, err

    # Only rank 0 writes metrics and checkpoints.
    assert not (tmp_path / "dp1").exists()
    a = read_safetensors(tmp_path / "one" / "checkpoint" / "model.safetensors")
    b = read_safetensors(tmp_path / "dp0" / "checkpoint" / "model.safetensors")
    assert a.keys() == b.keys() and len(a) > 3
    for name in a:
        assert torch.allclose(a[name], b[name], rtol=0, atol=1e-6), (name, (a[name] - b[name]).abs().max())
    # Clipping and Adam hide a gradient off by a constant factor from the weights (each rank
    # running every micro-batch still passes the check above); the logged sums catch it.
    la, lb = losses(tmp_path / "one"), losses(tmp_path / "dp0")
    assert [s["step"] for s in lb] == [1, 2, 3, 4]
    for x, y in zip(la, lb):
        # The logged loss and token counts are the whole step's, not one rank's half.
        assert x["tokens"] == y["tokens"] and x["loss_tokens"] == y["loss_tokens"]
        assert abs(x["loss"] - y["loss"]) <= 1e-6 * abs(x["loss"])
        assert abs(x["grad_norm"] - y["grad_norm"]) <= 1e-5 * x["grad_norm"]
    # Training moved the weights away from the seed's (the comparison is of updated tensors).
    assert la[-1]["loss"] != la[0]["loss"]


def wait_for_steps(out, n, proc, limit_s=300):
    t0 = time.time()
    while time.time() - t0 < limit_s:
        assert proc.poll() is None, proc.communicate()[1]
        path = os.path.join(out, "metrics.jsonl")
        if os.path.exists(path) and len(losses(out)) >= n:
            return
        time.sleep(0.2)
    raise AssertionError("rank 0 made no progress")


@pytest.mark.parametrize("how", ["kill", "hang"])
def test_a_lost_rank_ends_the_other_with_a_clear_error(tmp_path, how):
    data = small_data(tmp_path)
    args = [*ARGS, "--data", data, "--steps", 100000, "--grad-accum", 2]
    port, deadline = free_port(), 10
    ranks = [start([*args, "--out", tmp_path / f"dp{r}"], rank_env(r, 2, port, deadline)) for r in range(2)]
    try:
        wait_for_steps(tmp_path / "dp0", 1, ranks[0])
        lost = time.time()
        os.kill(ranks[1].pid, signal.SIGKILL if how == "kill" else signal.SIGSTOP)
        _, err = ranks[0].communicate(timeout=deadline + 60)
        took = time.time() - lost
    finally:
        for p in ranks:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert ranks[0].returncode != 0
    assert "distributed" in err and "rank 0/2" in err and "TRITONRL_DIST_TIMEOUT_S" in err, err
    # A dead peer closes its sockets (noticed at once); a stopped one only by the deadline.
    assert took < deadline + 30, took
    if how == "hang":
        assert took >= deadline - 1, took


def test_torchrun_launch_joins_the_agents_store(tmp_path):
    # torchrun's agent hosts the store on MASTER_PORT; the ranks must join it, not bind it again.
    data = small_data(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("WORLD_SIZE", "RANK", "MASTER_PORT")}
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2",
                        "--master-port", str(free_port()), "--no-python", TRITONRL, "train", "sft",
                        "--device", "cpu", "--no-progress", *map(str, ARGS), "--data", str(data),
                        "--steps", "2", "--grad-accum", "2", "--out", str(tmp_path / "run")],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert [s["step"] for s in losses(tmp_path / "run")] == [1, 2]
