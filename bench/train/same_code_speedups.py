#!/usr/bin/env python3
"""How well does a speedup repeat? The same kernel code, measured in two GRPO runs of one block.

Within a run the scorer measures a code once and serves the verdict from its store after that, so
the repeatability of a speedup is only visible between runs: runs of the same block train from the
same SFT weights on the same tasks (their first step's rollouts are identical), and their stores
are separate, so each run times the code and the task's reference afresh.

Input: rollouts.jsonl files named by their run (RUN=PATH), or the compact TSV (gzip) that
bench/results keeps (columns mode, step, task, code_sha, speedup, ...; one run per `mode`).
For each pair of runs, over the (task, code) pairs both timed, it prints the median ratio of the
second run's speedup to the first's, the median |log ratio|, the share off by more than 20%, and how
much of the log-ratio variance lies within tasks (a changed reference timing would move every code
of a task alike; what is left within a task is the candidate's own measurement).

  same_code_speedups.py hrd=W/grpo/hrd_s1/rollouts.jsonl uniform=W/grpo/uniform_s1/rollouts.jsonl
  same_code_speedups.py bench/results/gpu23_e2_block1/rollouts_compact.tsv.gz [--step 1]
"""
import argparse
import csv
import gzip
import hashlib
import io
import json
import math
import statistics as st
import sys


def code_sha(response):
    """The code block of a response (what the scorer keys its cache on), hashed."""
    start = response.find("```python")
    end = response.rfind("```")
    code = response[start + len("```python"):end] if 0 <= start < end else response
    return hashlib.sha256(code.strip().encode()).hexdigest()[:16]


def rollout_records(path):
    """A rollouts.jsonl's records; a line that is not JSON stops the script with its file and line."""
    for n, line in enumerate(open(path), 1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"{path}:{n}: not JSON ({e})")


def read_jsonl(run, path):
    return [{"run": run, "step": r["step"], "task": r["task"], "code": code_sha(r["response"]),
             "speedup": r.get("speedup"), "imputed": bool(r.get("speedup_imputed"))}
            for r in rollout_records(path)]


def read_tsv(path):
    text = gzip.open(path, "rt").read() if path.endswith(".gz") else open(path).read()
    rows = []
    for r in csv.DictReader(io.StringIO(text), delimiter="\t"):
        if "code_sha" not in r:
            sys.exit(f"{path}: no code_sha column (compact files before 2026-12-06's block 1 lack it)")
        rows.append({"run": r["mode"], "step": int(r["step"]), "task": r["task"], "code": r["code_sha"],
                     "speedup": float(r["speedup"]) if r["speedup"] else None,
                     "imputed": r.get("speedup_imputed") == "1"})
    return rows


def measured(rows, step):
    """run -> (task, code) -> the measured speedup (imputed ones are not measurements)."""
    out = {}
    for r in rows:
        if r["speedup"] is None or r["imputed"] or r["speedup"] <= 0:
            continue
        if step is not None and r["step"] != step:
            continue
        out.setdefault(r["run"], {}).setdefault((r["task"], r["code"]), r["speedup"])
    return out


def compare(a, b):
    shared = sorted(set(a) & set(b))
    logs = [math.log(b[k] / a[k]) for k in shared]
    if len(logs) < 2:
        return None
    by_task = {}
    for k, v in zip(shared, logs):
        by_task.setdefault(k[0], []).append(v)
    within = sum(sum((x - st.mean(v)) ** 2 for x in v) for v in by_task.values()) / len(logs)
    return {"n": len(logs), "median_ratio": math.exp(st.median(logs)),
            "median_abs_log": st.median(abs(x) for x in logs),
            "off_20": sum(abs(math.exp(x) - 1) > 0.2 for x in logs) / len(logs),
            "var": st.pvariance(logs), "within_task_var": within}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+", help="RUN=rollouts.jsonl, or a compact .tsv[.gz]")
    ap.add_argument("--step", type=int, help="only this training step's rollouts")
    args = ap.parse_args(argv)
    rows = []
    for i in args.inputs:
        if "=" in i:
            run, path = i.split("=", 1)
            rows += read_jsonl(run, path)
        else:
            rows += read_tsv(i)
    runs = measured(rows, args.step)
    names = list(dict.fromkeys(r["run"] for r in rows))
    print(f"{'runs (b over a)':24} {'codes':>6} {'median b/a':>10} {'median |log|':>12} "
          f"{'off >20%':>9} {'var log':>8} {'within task':>11}")
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            c = compare(runs.get(a, {}), runs.get(b, {}))
            if c is None:
                print(f"{b + ' / ' + a:24} {'-':>6}")
                continue
            print(f"{b + ' / ' + a:24} {c['n']:6d} {c['median_ratio']:10.3f} {c['median_abs_log']:12.3f} "
                  f"{c['off_20']:9.2f} {c['var']:8.3f} {c['within_task_var']:11.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
