#!/usr/bin/env python3
"""Time and peak memory of the runner's output checks on one large output: taskmod.compare
(a close answer, the slowest path: every check runs) and, where the runner has them, the
audit's statistics (audit._stats). Each case runs in a fresh process so peak figures do not mix.

    bench/audit/compare_memory.py [--numel N] [--device cpu|cuda] [--runner DIR] [--repeat R]

--runner: the folder holding tritonrl_runner/ (default: this checkout's python/), e.g. an older
tree unpacked with `git archive` to compare before and after. Prints one table row per case:
median wall seconds and the peak memory above the inputs (CPU: max RSS; CUDA: max allocated).
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import torch
from tritonrl_runner import taskmod
numel, device, case = int(sys.argv[2]), sys.argv[3], sys.argv[4]
g = torch.Generator(device=device).manual_seed(0)
ref = torch.randn(numel, device=device, generator=g)
out = ref + 1e-6 * torch.randn(numel, device=device, generator=g)
def peak():
    if device == "cuda":
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated()
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
base = peak()
if device == "cuda":
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
t0 = time.perf_counter()
if case == "compare":
    ok = taskmod.compare(out, ref, 1e-4, 1e-4).ok
else:
    from tritonrl_runner import audit
    ok = audit._stats([ref])["numel"] == numel
if device == "cuda":
    torch.cuda.synchronize()
wall = time.perf_counter() - t0
print(json.dumps({"ok": ok, "wall_s": wall, "peak_above_inputs": peak() - base}))
"""


def run(runner: str, numel: int, device: str, case: str) -> dict:
    p = subprocess.run([sys.executable, "-c", CHILD, runner, str(numel), device, case],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"}
    return json.loads(p.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--numel", type=int, default=1 << 25)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--runner", default=str(ROOT / "python"))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print(f"{a.numel} fp32 elements on {a.device}, runner {a.runner}, median of {a.repeat}")
    print(f"{'case':<10} {'ok':<5} {'wall s':>8} {'peak above inputs':>18}")
    for case in ("compare", "stats"):
        rows = [run(a.runner, a.numel, a.device, case) for _ in range(a.repeat)]
        if any("error" in r for r in rows):
            print(f"{case:<10} error: {next(r['error'] for r in rows if 'error' in r)[:100]}")
            continue
        wall = statistics.median(r["wall_s"] for r in rows)
        peak = statistics.median(r["peak_above_inputs"] for r in rows)
        print(f"{case:<10} {str(all(r['ok'] for r in rows)):<5} {wall:8.2f} {peak / 2**30:15.2f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
