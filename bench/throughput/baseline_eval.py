"""A naive evaluation harness, written by us, as the throughput baseline.

    baseline_eval.py --tasks DIR --samples FILE.jsonl --out RESULTS.jsonl
                     [--device cuda|cpu] [--trials 5] [--timing-trials 100] [--timeout 300] [--every K]

It does what common harnesses (KernelBench-style) do: one fresh Python process
per sample, sequentially; in that process it imports torch and triton, loads
the task and the candidate, checks correctness (``--trials`` seeded input sets
per variant, the reference Model and ModelNew in the same process,
torch.allclose with the task's tolerance), then times both with CUDA events
(warm-up, L2 flush, ``--timing-trials`` calls) on the timed variant ("large"
if present, else the last; the same choice as the engine). No static gate, no
sandbox, no reference reuse. ``--every K`` evaluates every K-th sample only.

Each result line: {task, sample, outcome, speedup, wall_s, stages: {import,
compile, correctness, reference, timing}} with outcome one of compile_error,
runtime_error, timeout, incorrect, correct. A summary goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
RUNNER = HERE.parents[2] / "python"


def child(task_path: str, code_path: str, device: str, trials: int, timing_trials: int) -> dict:
    stages = {}
    t = time.perf_counter()
    import torch
    import triton  # noqa: F401

    sys.path.insert(0, str(RUNNER))
    from tritonrl_runner import taskmod  # the task contract (variants, dtype, tolerance)

    task = taskmod.load_module(task_path)
    dev = torch.device(device)
    try:
        cand = taskmod.load_module(code_path)
        cls = cand.ModelNew
    except Exception as e:  # noqa: BLE001
        return {"outcome": "compile_error", "why": f"{type(e).__name__}: {e}"[:300], "stages": stages}
    stages["import"] = time.perf_counter() - t
    names = taskmod.variants(task)
    if dev.type == "cpu":
        names = ["small"] if "small" in names else names[:1]
    dtype = taskmod.task_dtype(task)
    atol, rtol = taskmod.tolerance(task)
    stages.update(compile=0.0, correctness=0.0, reference=0.0, timing=0.0)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    for variant in names:
        taskmod.apply_variant(task, variant)
        init = taskmod.init_inputs(task, 42)
        ref_model = taskmod.build_model(task.Model, init, 42, device=dev, dtype=dtype)
        t = time.perf_counter()
        try:
            new_model = taskmod.build_model(cls, init, 42, device=dev, dtype=dtype)
        except Exception as e:  # noqa: BLE001
            return {"outcome": "compile_error", "why": f"{type(e).__name__}: {e}"[:300], "stages": stages}
        stages["compile"] += time.perf_counter() - t
        for i in range(trials):
            inputs = taskmod.to_device(taskmod.make_inputs(task, 42 + 1000003 * i), dev)
            t = time.perf_counter()
            with torch.no_grad():
                ref = ref_model(*inputs)
            sync()
            stages["reference"] += time.perf_counter() - t
            t = time.perf_counter()
            try:
                with torch.no_grad():
                    out = new_model(*inputs)
                sync()
            except Exception as e:  # noqa: BLE001
                kind = "compile_error" if "Compilation" in type(e).__name__ else "runtime_error"
                return {"outcome": kind, "why": f"{type(e).__name__}: {e}"[:300], "stages": stages}
            stages["compile" if i == 0 else "correctness"] += time.perf_counter() - t
            t = time.perf_counter()
            refs, outs = taskmod.flatten_outputs(ref), taskmod.flatten_outputs(out)
            ok = len(refs) == len(outs) and all(
                isinstance(o, torch.Tensor) and o.shape == r.shape and o.dtype == r.dtype
                and torch.allclose(o.float(), r.float(), atol=atol, rtol=rtol, equal_nan=True)
                for o, r in zip(outs, refs))
            stages["correctness"] += time.perf_counter() - t
            if not ok:
                return {"outcome": "incorrect", "why": f"{variant} trial {i}", "stages": stages}

    if dev.type != "cuda":
        return {"outcome": "correct", "speedup": None, "stages": stages}
    # Timing: CUDA events around each call, L2 flushed (256 MiB), fixed inputs.
    t = time.perf_counter()
    variant = "large" if "large" in names else names[-1]
    taskmod.apply_variant(task, variant)
    init = taskmod.init_inputs(task, 42)
    inputs = taskmod.to_device(taskmod.make_inputs(task, 42), dev)
    flush = torch.empty(64 << 20, dtype=torch.int32, device=dev)

    def bench(model):
        with torch.no_grad():
            for _ in range(3):
                model(*inputs)
            sync()
            times = []
            for _ in range(timing_trials):
                flush.zero_()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                model(*inputs)
                e.record()
                torch.cuda.synchronize()
                times.append(s.elapsed_time(e))
        times.sort()
        return times[len(times) // 2]

    t_ref = bench(taskmod.build_model(task.Model, init, 42, device=dev, dtype=dtype))
    t_new = bench(taskmod.build_model(cls, init, 42, device=dev, dtype=dtype))
    stages["timing"] = time.perf_counter() - t
    return {"outcome": "correct", "speedup": t_ref / t_new, "ref_ms": t_ref, "new_ms": t_new, "stages": stages}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks")
    ap.add_argument("--samples")
    ap.add_argument("--out")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--timing-trials", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--child", nargs=2, metavar=("TASK", "CODE"))
    a = ap.parse_args()
    if a.child:
        try:
            r = child(a.child[0], a.child[1], a.device, a.trials, a.timing_trials)
        except Exception as e:  # noqa: BLE001
            r = {"outcome": "runtime_error", "why": f"{type(e).__name__}: {e}"[:300]}
        print("RESULT " + json.dumps(r), flush=True)
        os._exit(0)

    lines = [json.loads(x) for x in open(a.samples) if x.strip()]
    lines = lines[:: max(1, a.every)]
    env = dict(os.environ)
    if a.device == "cpu":
        env.update(TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    t_all = time.perf_counter()
    counts: dict[str, int] = {}
    with open(a.out, "w") as out, tempfile.TemporaryDirectory() as tmp:
        for n, s in enumerate(lines):
            code = s.get("code") or s.get("output", "")
            path = Path(tmp) / f"cand_{n}.py"
            path.write_text(code)
            task_path = str(Path(a.tasks) / (s["task"] + ".py"))
            t = time.perf_counter()
            try:
                p = subprocess.run([sys.executable, str(HERE), "--device", a.device, "--trials", str(a.trials),
                                    "--timing-trials", str(a.timing_trials), "--child", task_path, str(path)],
                                   capture_output=True, text=True, timeout=a.timeout, env=env)
                res = next((json.loads(x[7:]) for x in p.stdout.splitlines()[::-1] if x.startswith("RESULT ")),
                           None)
                if res is None:
                    res = {"outcome": "runtime_error", "why": (p.stderr or "")[-300:]}
            except subprocess.TimeoutExpired:
                res = {"outcome": "timeout"}
            res.update(task=s["task"], sample=s.get("sample"), wall_s=time.perf_counter() - t)
            counts[res["outcome"]] = counts.get(res["outcome"], 0) + 1
            out.write(json.dumps(res) + "\n")
            out.flush()
            print(f"baseline {n + 1}/{len(lines)} {s['task']} {s.get('sample')}: {res['outcome']} "
                  f"({res['wall_s']:.1f}s)", file=sys.stderr, flush=True)
    wall = time.perf_counter() - t_all
    print(f"baseline: {len(lines)} samples in {wall:.1f}s = {60 * len(lines) / wall:.2f} samples/min; {counts}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
