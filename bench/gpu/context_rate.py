"""How fast fresh processes get a usable CUDA device, alone and many at once (issue 35).

Each scoring worker is a fresh process that creates its own CUDA context before it can run a
candidate; the tenth session's A/B (bench/RESULTS.md) measured that set-up at ~1.5 s a worker under
16 concurrent workers, against ~0.3 s quiet, and it caps scored rollouts a second whatever is
pre-started. This separates where the time goes, with P processes starting together (each
imports torch first, then waits for a common start time):

  driver   cuInit + cuDevicePrimaryCtxRetain + cuCtxSetCurrent through ctypes (the driver alone)
  torch    torch.cuda.init() and one allocation, synchronized (what a worker's set-up does first)
  cublas   then one fp32 matmul (cuBLAS handle and workspace; the reference comparison needs it)

Prints a table: P, stage, mean and max seconds a process, and contexts a second overall
(P / the slowest process). Run on the GPU machine: python3 bench/gpu/context_rate.py [P ...]
"""
import json
import os
import subprocess
import sys
import time

CHILD = r"""
import ctypes, json, os, sys, time
start_at = float(sys.argv[1]); mode = sys.argv[2]
t_import = time.perf_counter()
import torch
t_import = time.perf_counter() - t_import
while time.time() < start_at:
    time.sleep(0.001)
out = {"import": t_import}
t0 = time.perf_counter()
if mode == "driver":
    cuda = ctypes.CDLL("libcuda.so.1")
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    assert cuda.cuInit(0) == 0
    assert cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0
    assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    assert cuda.cuCtxSetCurrent(ctx) == 0
    out["driver"] = time.perf_counter() - t0
else:
    torch.cuda.init()
    x = torch.empty(1 << 20, device="cuda")
    torch.cuda.synchronize()
    out["torch"] = time.perf_counter() - t0
    if mode == "cublas":
        t1 = time.perf_counter()
        a = torch.randn(256, 256, device="cuda")
        (a @ a).sum().item()
        out["cublas"] = time.perf_counter() - t1
print(json.dumps(out))
"""


def run(p: int, mode: str) -> list[dict]:
    start_at = time.time() + 8.0  # every child has imported torch by then
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(start_at), mode],
                              stdout=subprocess.PIPE, text=True) for _ in range(p)]
    results = []
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def main() -> None:
    counts = [int(a) for a in sys.argv[1:]] or [1, 4, 16]
    print(f"# {os.uname().nodename}, {os.cpu_count()} cores; "
          f"CUDA_MODULE_LOADING={os.environ.get('CUDA_MODULE_LOADING', '(default)')}")
    print("| processes | stage | mean s | max s | per second |")
    print("|---|---|---|---|---|")
    for p in counts:
        for mode in ("driver", "torch", "cublas"):
            results = run(p, mode)
            for stage in ([mode] if mode != "cublas" else ["torch", "cublas"]):
                values = [r[stage] for r in results]
                print(f"| {p} | {mode if mode != 'cublas' else 'torch+' + stage} | "
                      f"{sum(values) / len(values):.3f} | {max(values):.3f} | {p / max(values):.1f} |",
                      flush=True)


if __name__ == "__main__":
    main()
