"""Speedup of task solutions by triton.testing.do_bench (the cross-check of our protocol).

    dobench_speedup.py SUITE SOLUTIONS OUT.json TASK [TASK ...]

For each task: the timed variant ("large" if present, else the last, as the
engine), Model and ModelNew built from the same seed on the GPU, fixed inputs,
and do_bench(fn, return_mode="median"), which zeroes a 256 MiB buffer (L2
flush) before every call. Writes {task: {reference_ms, candidate_ms, speedup}}.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import triton.testing

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from tritonrl_runner import taskmod  # noqa: E402


def main() -> None:
    suite, solutions, out_path, tasks = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    dev = torch.device("cuda")
    out = {}
    for task_id in tasks:
        try:
            task = taskmod.load_module(Path(suite) / f"{task_id}.py")
            cand = taskmod.load_module(Path(solutions) / f"{task_id}.py")
            names = taskmod.variants(task)
            variant = "large" if "large" in names else names[-1]
            taskmod.apply_variant(task, variant)
            dtype = taskmod.task_dtype(task)
            init = taskmod.init_inputs(task, 42)
            ref = taskmod.build_model(task.Model, init, 42, device=dev, dtype=dtype).eval()
            new = taskmod.build_model(cand.ModelNew, init, 42, device=dev, dtype=dtype).eval()
            x = taskmod.to_device(taskmod.make_inputs(task, 42), dev)
            with torch.no_grad():
                t_ref = triton.testing.do_bench(lambda: ref(*x), warmup=25, rep=200, return_mode="median")
                t_new = triton.testing.do_bench(lambda: new(*x), warmup=25, rep=200, return_mode="median")
            out[task_id] = {"variant": variant, "reference_ms": t_ref, "candidate_ms": t_new, "speedup": t_ref / t_new}
            print(f"do_bench {task_id} [{variant}]: reference {t_ref:.4f} ms, solution {t_new:.4f} ms, "
                  f"speedup {t_ref / t_new:.3f}x", flush=True)
        except Exception as e:  # noqa: BLE001 - reported, the others go on
            out[task_id] = {"error": f"{type(e).__name__}: {e}"[:300]}
            print(f"do_bench {task_id}: {out[task_id]['error']}", flush=True)
        taskmod.unload_module(task) if "task" in dir() else None
    json.dump(out, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main()
