"""What the timing stage's fresh inputs cost a timed call since tritonrl-eval/34 (docs/eval.md,
the ninth review): the base rolled by the call's offset (eval/33 and before) against the base
rolled and then scattered by the stage's permutation (timing.fresh_inputs), per input size, on one
device. The inputs are made before each timed call's span, so this is time added to the stage
(both workers pay it), not to the measured call.

    python bench/gpu/fresh_inputs_cost.py [--device cuda] [--sizes 1048576,16777216] [--calls 20]

Prints one row per size: elements, MiB, milliseconds a call for the roll alone and for
roll + scatter (medians over --calls calls after a warm-up), the scatter's extra, and the
one-time cost of making the permutation."""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from tritonrl_runner import timing  # noqa: E402


def _median_ms(fn, device, calls: int) -> float:
    fn()  # warm-up: the allocator and, for the scatter, the permutation
    times = []
    for _ in range(calls):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--sizes", default="1048576,16777216,67108864,335544320")
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args()
    device = torch.device(args.device)
    print(f"device: {torch.cuda.get_device_name(device) if device.type == 'cuda' else 'cpu'}")
    print(f"{'elements':>12} {'MiB':>8} {'roll ms':>9} {'roll+scatter ms':>16} {'extra ms':>9} {'permutation ms':>15}")
    for n in (int(s) for s in args.sizes.split(",")):
        base = torch.randn(n, device=device)
        seeds = iter(range(10**9))

        def roll_only():
            k = 1 + next(seeds) % (n - 1)
            return torch.roll(base, k).contiguous()

        def roll_scatter():
            return timing.fresh_inputs([base], next(seeds))[0]

        timing._SCATTER.clear()
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        timing._scatter_positions(n, device)
        if device.type == "cuda":
            torch.cuda.synchronize()
        made_ms = (time.perf_counter() - t0) * 1e3
        a = _median_ms(roll_only, device, args.calls)
        b = _median_ms(roll_scatter, device, args.calls)
        print(f"{n:>12} {n * 4 / 2**20:>8.0f} {a:>9.3f} {b:>16.3f} {b - a:>9.3f} {made_ms:>15.1f}")
        del base
        timing._SCATTER.clear()
        if device.type == "cuda":
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
