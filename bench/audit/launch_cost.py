"""The audit's cost per kernel launch (issue 34, docs/eval.md "Still open"): honest candidates that
launch once per row or per chunk, run by the real candidate worker (driven over its pipes as the
engine drives it: launch recorder, ATen audit and call monitor on) against the same forward call
run bare in a plain process (the peer: no worker, no audit), on the same inputs.

    python bench/audit/launch_cost.py [--device cuda] [--variant medium] [--trials 3] [--runner DIR]
                                      [--profile DIR]

Per candidate: launches per call, the bare call's time per launch, the audited call's time per
launch (the worker's trial `ms`, medians over the trials after the first) and their difference,
the audit's cost per launch, and the parts of it the audit's own clocks measured (the call
monitor's callbacks; the launch recorder's dispatch callbacks and launch steps; the rest is the
launch wrapper's argument checks, the dispatch mode's C side and the launch hooks). With --profile the worker also runs under cProfile (its figures are
then inflated by the profiler, so read them as shares, not times): each candidate's stats go to
DIR/<file>.prof (one call) and the runner's, Triton's and torch's own time are printed with the top
functions by own time. On the CPU, Triton's interpreter runs every launch: the bare time is
large and the difference is the host work the audit adds; on a GPU both are host times too
(a launch is asynchronous) and the difference is the figure docs/eval.md reports."""
from __future__ import annotations

import argparse
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from tritonrl_runner.protocol import read_frame, write_frame  # noqa: E402

# The legit corpus files that launch once per row or per chunk (their tasks are in their headers).
CANDIDATES = [
    "tests/corpus/legit/row_l2norm_per_row_launch_stride_offset.py",
    "tests/corpus/legit/leaky_relu_chunked_range_launches.py",
    "tests/corpus/legit/tanh_while_offset_accumulator.py",
]

# The worker under cProfile, on while a trial's call runs (Worker._forward, wrapped before the
# runner protects its namespaces): the same entry point (worker.main), the stats written before
# the worker's own exit path (it leaves with os._exit, running nothing registered).
_PROFILED = """
import cProfile, os, sys
sys.path.insert(0, {runner!r})
from tritonrl_runner import worker
prof = cProfile.Profile()
call = worker.Worker._forward


def _forward(self, *args, **kwargs):  # the trial's call alone, not the start-up or the checks
    prof.enable()
    try:
        return call(self, *args, **kwargs)
    finally:
        prof.disable()


worker.Worker._forward = _forward
rc = worker.main([{worker_py!r}] + sys.argv[1:])
prof.dump_stats({out!r})
os._exit(rc)
"""

# The bare peer: the candidate's forward call on the trial's inputs, no worker around it.
_BARE = """
import json, sys, time
sys.path.insert(0, {runner!r})
import torch
from tritonrl_runner import taskmod
task = taskmod.load_module({task!r})
taskmod.apply_variant(task, {variant!r})
cand = taskmod.load_module({cand!r})
device = torch.device({device!r})
model = taskmod.build_model(cand.ModelNew, taskmod.init_inputs(task, 7), 7, device=device,
                            dtype=taskmod.task_dtype(task))
ms = []
for seed in {seeds!r}:
    inputs = taskmod.to_device(taskmod.make_inputs(task, seed, device), device)
    if device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.no_grad():
        model(*inputs)
    if device.type == "cuda":
        torch.cuda.synchronize()
    ms.append((time.perf_counter() - t0) * 1e3)
print(json.dumps(ms))
"""


def _env(tmp: Path, device: str) -> dict:
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "OMP_NUM_THREADS": "1", "HOME": str(tmp),
           "TRITON_CACHE_DIR": str(tmp / "cache")}
    for name in ("LD_LIBRARY_PATH", "CUDA_HOME", "TRITON_LIBCUDA_PATH", "CUDA_VISIBLE_DEVICES"):
        if name in os.environ:
            env[name] = os.environ[name]
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
    return env


def _task_of(cand: Path) -> Path:
    for line in cand.read_text().splitlines():
        if line.startswith("# task:"):
            return ROOT / "tasks" / f"{line.split(':', 1)[1].strip()}.py"
    raise SystemExit(f"{cand}:1: no '# task:' line")


def audited(runner: Path, task: Path, cand: Path, device: str, variant: str, seeds: list[int], tmp: Path,
            profile: Path | None) -> list[tuple[float, int, float, float]]:
    """(ms, launches, monitor ms, recorder ms) of each trial's call in the real candidate worker:
    the last two are the audit's own time by its clocks (the call monitor's callbacks; the
    recorder's dispatch callbacks and launch steps)."""
    req = {"role": "candidate", "task_path": str(task), "candidate_path": str(cand), "device": device,
           "variants": [variant], "init_seed": 7, "allowlist_path": str(ROOT / "src" / "verify" / "allowlist.json"),
           "trials": [{"seed": s, "train": False, "grad": False} for s in seeds], "perturb": 0}
    worker_py = str(runner / "tritonrl_runner" / "worker.py")
    if profile is None:
        argv = [sys.executable, "-I", "-B", worker_py]
    else:
        code = _PROFILED.format(runner=str(runner), worker_py=worker_py, out=str(profile))
        argv = [sys.executable, "-I", "-B", "-c", code]
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    proc = subprocess.Popen(argv + [str(r_in), str(w_out)], pass_fds=(r_in, w_out), env=_env(tmp, device),
                            cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(r_in)
    os.close(w_out)
    write_frame(w_in, req)
    os.close(w_in)
    calls = []
    while True:
        try:
            h, _ = read_frame(r_out)
        except EOFError:
            break
        if h.get("type") == "trial":
            phase = h.get("phase_ms", {})
            calls.append((float(h["ms"]), int(h["host_steps"][0][1]), float(phase.get("audit_monitor", 0.0)),
                          float(phase.get("audit_recorder", 0.0))))
        elif h.get("type") == "error":
            raise RuntimeError(f"{cand}: {h.get('message', '')[-800:]}")
    os.close(r_out)
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    if len(calls) != len(seeds):
        raise RuntimeError(f"{cand}: {len(calls)} of {len(seeds)} trials came back; stderr: {err[-800:]}")
    return calls


def bare(task: Path, cand: Path, device: str, variant: str, seeds: list[int], tmp: Path) -> list[float]:
    code = _BARE.format(runner=str(ROOT / "python"), task=str(task), cand=str(cand), device=device,
                        variant=variant, seeds=seeds)
    out = subprocess.run([sys.executable, "-I", "-B", "-c", code], env=_env(tmp, device), cwd=tmp,
                         capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(f"{cand} (bare): {out.stderr[-800:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _area(filename: str) -> str:
    if "tritonrl_runner" in filename:
        return "runner"
    for name in ("triton", "torch"):
        if f"/{name}/" in filename:
            return name
    return "other"


def print_profile(path: Path, top: int) -> None:
    stats = pstats.Stats(str(path))
    by_area: dict[str, float] = {}
    rows = []
    for (filename, line, func), (_, ncalls, tottime, cumtime, _) in stats.stats.items():
        by_area[_area(filename)] = by_area.get(_area(filename), 0.0) + tottime
        rows.append((tottime, ncalls, cumtime, f"{Path(filename).name}:{line}({func})"))
    total = sum(by_area.values()) or 1.0
    print("  own time by area: " + ", ".join(f"{k} {v:.2f} s ({100 * v / total:.0f}%)"
                                            for k, v in sorted(by_area.items(), key=lambda kv: -kv[1])))
    for tottime, ncalls, cumtime, where in sorted(rows, reverse=True)[:top]:
        print(f"    {tottime:8.3f} s own {cumtime:8.3f} s cum {ncalls:9d} calls  {where}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--variant", default="small")
    ap.add_argument("--trials", type=int, default=3, help="calls per candidate (the first is a warm-up)")
    ap.add_argument("--match", default="", help="only candidates whose path contains this")
    ap.add_argument("--runner", type=Path, default=ROOT / "python",
                    help="the folder holding tritonrl_runner/ whose worker is measured (an earlier tree's, "
                         "e.g. `git archive REV python`, for a before-and-after)")
    ap.add_argument("--profile", type=Path, help="also run each worker under cProfile, stats in this folder")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    a = ap.parse_args()
    seeds = [101 + i for i in range(max(2, a.trials))]
    rows = []
    print(f"{'candidate':44} {'launches':>8} {'bare us/launch':>15} {'audited us/launch':>18} "
          f"{'audit us/launch':>16} {'of it monitor':>12} {'of it recorder':>13}", flush=True)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for rel in CANDIDATES:
            if a.match not in rel:
                continue
            cand = ROOT / rel
            task = _task_of(cand)
            prof = None
            if a.profile is not None:
                a.profile.mkdir(parents=True, exist_ok=True)
                prof = a.profile / f"{cand.stem}.prof"
            calls = audited(a.runner, task, cand, a.device, a.variant, seeds, tmp, None)
            launches = calls[0][1]
            if launches == 0 or any(c[1] != launches for c in calls):
                raise RuntimeError(f"{rel}: launches per call {[c[1] for c in calls]}")
            bare_ms = bare(task, cand, a.device, a.variant, seeds, tmp)
            med = statistics.median
            audited_us = 1e3 * med([c[0] for c in calls[1:]]) / launches
            monitor_us = 1e3 * med([c[2] for c in calls[1:]]) / launches
            recorder_us = 1e3 * med([c[3] for c in calls[1:]]) / launches
            bare_us = 1e3 * med(bare_ms[1:]) / launches
            row = {"candidate": rel, "runner": str(a.runner), "device": a.device, "variant": a.variant, "launches": launches,
                   "bare_us_per_launch": round(bare_us, 2), "audited_us_per_launch": round(audited_us, 2),
                   "audit_us_per_launch": round(audited_us - bare_us, 2),
                   "monitor_us_per_launch": round(monitor_us, 2), "recorder_us_per_launch": round(recorder_us, 2)}
            rows.append(row)
            print(f"{cand.stem:44} {launches:8d} {bare_us:15.1f} {audited_us:18.1f} {audited_us - bare_us:16.1f} "
                  f"{monitor_us:12.1f} {recorder_us:13.1f}", flush=True)
            if prof is not None:
                audited(a.runner, task, cand, a.device, a.variant, seeds[:1], tmp, prof)
                print_profile(prof, a.top)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
