#!/usr/bin/env python3
"""The table of bench/gpu/timing_repeat.sh: how far the same sample's timing moved between runs.

Each input is RUN=EVAL_JSON (`tritonrl eval --json`). For each pair of runs, over the samples both
timed (a trusted speedup in each), it prints the median ratio of the second run's speedup to the
first's, the median |log ratio| of the speedup, of the candidate's median event time and of the
reference's, and the share of samples whose speedup moved by more than 20%. Then per run: samples,
timed samples, voided speedups, the means of trials_started_while_timed and
references_started_while_timed, the share of timed calls the launch cover held (candidate,
reference; tritonrl-eval/30), and (with --walls) the wall time and samples a second.

  timing_repeat.py [--walls walls.txt] load1=OUT/load1.json load2=OUT/load2.json ...
"""
import argparse
import json
import statistics as st
import sys
from pathlib import Path

# One home for "how far did a measurement move between two runs".
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "train"))
from same_code_speedups import compare  # noqa: E402


def load(path):
    try:
        samples = json.load(open(path))["samples"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"{path}: not an eval JSON with samples ({e})")
    out = {}
    for s in samples:
        t = s.get("evidence", {}).get("timing", {})
        out[(s["task"], s["sample"])] = {
            "speedup": s.get("speedup"),
            "cand_ms": (t.get("candidate_event_ms") or {}).get("median"),
            "ref_ms": (t.get("reference_event_ms") or {}).get("median"),
            "during": t.get("trials_started_while_timed"),
            "ref_during": t.get("references_started_while_timed"),
            "voided": s.get("outcome") == "correct" and s.get("speedup") is None and "candidate_event_ms" in t,
            # Timed calls the launch cover held (tritonrl-eval/30; docs/measurement.md "The device
            # clock"), of the trials: absent or -1 before.
            "covered": (t.get("candidate_covered_calls"), t.get("reference_covered_calls"), t.get("trials")),
        }
    return out


def covered_share(samples, side):
    """Share of timed calls the launch cover held on one side (0 candidate, 1 reference), over
    the samples that report it; '-' when none does."""
    got = [(v["covered"][side], v["covered"][2]) for v in samples
           if isinstance(v["covered"][side], int) and v["covered"][side] >= 0 and v["covered"][2]]
    if not got:
        return "-"
    return f"{sum(c for c, _ in got) / sum(n for _, n in got):.2f}"


def measure(run, field):
    """(task, sample) -> the field's value, for the samples with a trusted speedup."""
    return {k: v[field] for k, v in run.items() if v["speedup"] and v[field]}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="RUN=eval.json")
    ap.add_argument("--walls", help="lines 'RUN SECONDS'")
    args = ap.parse_args(argv)
    runs = {}
    for r in args.runs:
        if "=" not in r:
            sys.exit(f"timing_repeat.py: '{r}' is not RUN=PATH")
        name, path = r.split("=", 1)
        runs[name] = load(path)
    names = list(runs)
    print(f"{'runs (b over a)':20} {'timed':>6} {'speedup b/a':>11} {'|log| speedup':>13} "
          f"{'off >20%':>8} {'|log| cand ms':>13} {'|log| ref ms':>12}")
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            sp = compare(measure(runs[a], "speedup"), measure(runs[b], "speedup"))
            if sp is None:
                print(f"{b + ' / ' + a:20} {0:6d}")
                continue
            cm = compare(measure(runs[a], "cand_ms"), measure(runs[b], "cand_ms"))
            rm = compare(measure(runs[a], "ref_ms"), measure(runs[b], "ref_ms"))
            nan = float("nan")
            print(f"{b + ' / ' + a:20} {sp['n']:6d} {sp['median_ratio']:11.3f} {sp['median_abs_log']:13.3f} "
                  f"{sp['off_20']:8.2f} {cm['median_abs_log'] if cm else nan:13.3f} "
                  f"{rm['median_abs_log'] if rm else nan:12.3f}")
    walls = {}
    if args.walls:
        for line in open(args.walls):
            if line.strip():
                name, secs = line.split()
                walls[name] = float(secs)
    print()
    print(f"{'run':10} {'samples':>7} {'timed':>6} {'voided':>6} {'trials during timing':>20} "
          f"{'references during':>17} {'covered c/r':>11} {'wall s':>7} {'samples/s':>9}")
    for name, r in runs.items():
        timed = [v for v in r.values() if v["speedup"]]
        during = [v["during"] for v in r.values() if v["during"] is not None]
        ref_during = [v["ref_during"] for v in r.values() if v["ref_during"] is not None]
        w = walls.get(name)
        print(f"{name:10} {len(r):7d} {len(timed):6d} {sum(v['voided'] for v in r.values()):6d} "
              f"{(st.mean(during) if during else float('nan')):20.2f} "
              f"{(st.mean(ref_during) if ref_during else float('nan')):17.2f} "
              f"{covered_share(r.values(), 0):>5}/{covered_share(r.values(), 1):<5} "
              f"{(w if w else float('nan')):7.1f} {(len(r) / w if w else float('nan')):9.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
