"""Checks the built-in task suites against their reference solutions, per variant.

For every task in tasks/levelN (with a solution in tasks/solutions/levelN) and every
selected variant: build the inputs and both models as the task contract says (see
docs/tasks.md), run the eager reference and the Triton solution, compare under the
task's tolerance, and time the eager reference (and the solution) on the timed
variants: CUDA events, L2 flushed before each call, median over --reps calls after
warm-up. Prints a table and writes it as JSON to $OUT/tasks_check.json (or --json).

  python3 bench/gpu/tasks_check.py                       # CUDA, all levels, all variants
  python3 bench/gpu/tasks_check.py --levels level1 --tasks 1_ReLU,5_Matmul
  python3 bench/gpu/tasks_check.py --device cpu --variants small   # interpreter, no GPU
  python3 bench/gpu/tasks_check.py --compile-only      # compile every kernel for sm_90, no GPU

Exit status: 0 all checks passed, 1 some task failed or errored, 2 usage error.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import pathlib
import statistics
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[2]
LARGE_MIN_MS = 0.5  # the suite's target for an eager reference on the large variant
NEAR_MARGIN = 0.9  # the engine's near_tolerance threshold (src/eval/engine.h)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--levels", default="", help="comma list such as level1,level2 (default: all)")
    p.add_argument("--tasks", default="", help="comma list of task file stems (default: all)")
    p.add_argument("--variants", default="small,medium,large")
    p.add_argument("--time-variants", default="large", help="variants whose runtimes are measured")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compile-only", action="store_true",
                   help="no run: compile each solution's kernels for --arch on the CPU")
    p.add_argument("--arch", type=int, default=90,
                   help="CUDA compute capability for --compile-only")
    p.add_argument("--cpu-inputs", action="store_true",
                   help="draw inputs with the CPU RNG as the runner does (slow for large)")
    p.add_argument("--json", default="", help="output path (default: $OUT/tasks_check.json)")
    return p.parse_args(argv)


def _csv(text):
    return [t for t in (s.strip() for s in text.split(",")) if t]


class Timer:
    """Median wall time of fn() in ms: CUDA events with an L2 flush on cuda, perf_counter on cpu."""

    def __init__(self, torch, device, reps, warmup):
        self.torch, self.device, self.reps, self.warmup = torch, device, reps, warmup
        # Larger than the H200's L2 (~60 MB); zeroing it evicts the inputs and outputs.
        self.flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=device) \
            if device == "cuda" else None

    def __call__(self, fn):
        torch = self.torch
        for _ in range(self.warmup):
            fn()
        times = []
        if self.device == "cuda":
            torch.cuda.synchronize()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            for _ in range(self.reps):
                self.flush.zero_()
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end))
        else:
            for _ in range(self.reps):
                t0 = time.perf_counter()
                fn()
                times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)


def compile_one(th, task_path, variant, args):
    row = {"task": th.task_id(task_path), "variant": variant, "ok": False, "kernels": [],
           "error": None}
    try:
        task = th.load_module(task_path)
        th.apply_variant(task, variant)
        row["kernels"] = th.compile_solution_for_gpu(task, th.solution_path(task_path),
                                                     args.seed, args.arch)
        row["ok"] = True
    except Exception as exc:  # a bench report: record the failure and go on
        row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        traceback.print_exc(file=sys.stderr)
    return row


def check_one(th, torch, task_path, variant, args, timer):
    row = {"task": th.task_id(task_path), "variant": variant, "ok": False,
           "max_abs_err": None, "rel_l2": None, "margin": None, "atol": None, "rtol": None,
           "ref_ms": None, "sol_ms": None, "error": None}
    try:
        task = th.load_module(task_path)
        sol = th.load_module(th.solution_path(task_path))
        th.apply_variant(task, variant)
        atol, rtol = th.tolerance(task)
        row["atol"], row["rtol"] = atol, rtol
        if args.device == "cuda" and not args.cpu_inputs:
            # Generating multi-GB inputs with the CPU RNG dominates the run; the check
            # compares solution and reference on the same inputs, so draw them on the GPU.
            with torch.device("cuda"):
                inputs = th.taskmod.make_inputs(task, args.seed)
        else:
            inputs = th.make_inputs(task, args.seed, args.device)
        ref_model, new_model = th.make_models(task, sol, args.seed, args.device)
        with torch.no_grad():
            ref = ref_model(*inputs)
            out = new_model(*inputs)
            if args.device == "cuda":
                torch.cuda.synchronize()
            result = th.compare(out, ref, atol, rtol)
            row["ok"] = result.ok
            row["max_abs_err"], row["rel_l2"] = result.max_abs_err, result.rel_l2
            row["margin"] = result.margin
            if not result.ok:
                row["error"] = result.reason
            del out, ref
            if variant in args.time_variant_set:
                row["ref_ms"] = timer(lambda: ref_model(*inputs))
                row["sol_ms"] = timer(lambda: new_model(*inputs))
    except Exception as exc:  # a bench report: record the failure and go on
        row["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        traceback.print_exc(file=sys.stderr)
    finally:
        gc.collect()
        if args.device == "cuda":
            torch.cuda.empty_cache()
    return row


def _fmt(value, spec):
    width = int(spec.split(".")[0])
    return "-".rjust(width) if value is None else format(value, spec)


def print_header():
    print(f"{'task':42} {'variant':7} {'ok':4} {'max_abs_err':>11} {'rel_l2':>9} {'margin':>6} "
          f"{'ref_ms':>9} {'sol_ms':>9} note", flush=True)


def print_row(r):
    note = r["error"] or ""
    if r["variant"] == "large" and r["ref_ms"] is not None and r["ref_ms"] < LARGE_MIN_MS:
        note = (note + " " if note else "") + f"ref under {LARGE_MIN_MS} ms"
    if r["ok"] and r["margin"] is not None and r["margin"] > NEAR_MARGIN:
        note = (note + " " if note else "") + "near tolerance"
    print(f"{r['task']:42} {r['variant']:7} {'yes' if r['ok'] else 'NO':4} "
          f"{_fmt(r['max_abs_err'], '11.3g')} {_fmt(r['rel_l2'], '9.2g')} {_fmt(r['margin'], '6.3f')} "
          f"{_fmt(r['ref_ms'], '9.3f')} {_fmt(r['sol_ms'], '9.3f')} {note}", flush=True)


def write_json(args, env, rows, quiet=False):
    out_path = args.json or (os.path.join(os.environ["OUT"], "tasks_check.json")
                             if os.environ.get("OUT") else "")
    if out_path:
        path = pathlib.Path(out_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps({"env": env, "rows": rows}, indent=1))
        tmp.replace(path)
        if not quiet:
            print(f"wrote {out_path}")


def compile_all(th, paths, variants, args):
    rows = []
    for path in paths:
        mod = th.load_module(path)
        for variant in variants:
            if variant in th.variant_names(mod):
                rows.append(compile_one(th, path, variant, args))
    print(f"{'task':42} {'variant':7} {'ok':4} kernels / error")
    for r in rows:
        detail = r["error"] or ", ".join(r["kernels"])
        print(f"{r['task']:42} {r['variant']:7} {'yes' if r['ok'] else 'NO':4} {detail}")
    n_bad = sum(not r["ok"] for r in rows)
    print(f"\n{len(rows)} compiled for sm_{args.arch}, {len(rows) - n_bad} ok, {n_bad} failed")
    write_json(args, {"mode": "compile-only", "arch": args.arch}, rows)
    return 1 if n_bad else 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.compile_only:
        if os.environ.get("TRITON_INTERPRET"):
            print("tasks_check: unset TRITON_INTERPRET for --compile-only", file=sys.stderr)
            return 2
        args.device = "cpu"  # forward runs on CPU tensors with launches recorded, not run
    elif args.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # before any solution's @triton.jit runs
    elif os.environ.get("TRITON_INTERPRET"):
        print("tasks_check: unset TRITON_INTERPRET for --device cuda", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT / "tests" / "python"))
    import torch
    import task_helpers as th

    if args.device == "cpu" and not args.compile_only:
        th.require_interpreter()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("tasks_check: no CUDA device (use --device cpu)", file=sys.stderr)
        return 2
    levels = _csv(args.levels) or sorted(
        p.name for p in (ROOT / "tasks").glob("level*") if p.is_dir())
    wanted = set(_csv(args.tasks))
    variants = _csv(args.variants)
    args.time_variant_set = set(_csv(args.time_variants))
    paths = [p for level in levels for p in th.task_files(level)
             if (not wanted or p.stem in wanted) and th.solution_path(p).is_file()]
    if not paths:
        print("tasks_check: no tasks selected", file=sys.stderr)
        return 2

    if args.compile_only:
        return compile_all(th, paths, variants, args)
    timer = Timer(torch, args.device, args.reps, args.warmup)
    env = {"device": torch.cuda.get_device_name() if args.device == "cuda" else "cpu",
           "torch": torch.__version__, "triton": __import__("triton").__version__,
           "cuda_matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
           "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
           "seed": args.seed, "reps": args.reps, "warmup": args.warmup}
    rows = []
    print_header()
    for path in paths:
        mod = th.load_module(path)
        for variant in variants:
            if variant not in th.variant_names(mod):
                continue
            t0 = time.perf_counter()
            row = check_one(th, torch, path, variant, args, timer)
            rows.append(row)
            print_row(row)
            print(f"# {row['task']} {variant}: {time.perf_counter() - t0:.1f} s", file=sys.stderr,
                  flush=True)
            write_json(args, env, rows, quiet=True)  # partial results survive a time limit

    n_bad = sum(not r["ok"] for r in rows)
    timed_large = [r for r in rows if r["variant"] == "large" and r["ref_ms"] is not None]
    n_short = sum(r["ref_ms"] < LARGE_MIN_MS for r in timed_large)
    n_near = sum(r["ok"] and (r["margin"] or 0) > NEAR_MARGIN for r in rows)
    worst = max((r["margin"] for r in rows if r["ok"] and r["margin"] is not None), default=0.0)
    print(f"\n{len(rows)} checks, {len(rows) - n_bad} ok, {n_bad} failed; "
          f"{len(timed_large)} large references timed, {n_short} under {LARGE_MIN_MS} ms; "
          f"worst tolerance margin of a passing check {worst:.3f}, {n_near} above {NEAR_MARGIN}")

    write_json(args, env, rows)
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
