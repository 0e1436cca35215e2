#!/usr/bin/env python3
"""The table of bench/gpu/timing_repeat.sh: how far the same sample's timing moved between runs.

Each input is RUN=EVAL_JSON (`tritonrl eval --json`). For each pair of runs, over the samples both
timed (a trusted speedup in each), it prints the median ratio of the second run's speedup to the
first's, the median |log ratio| of the speedup, of the candidate's median event time and of the
reference's, and the share of samples whose speedup moved by more than 20%. Then per run: samples,
timed samples, voided speedups, the means of trials_started_while_timed and
references_started_while_timed, and (with --walls) the
wall time and samples a second.

  timing_repeat.py [--walls walls.txt] load1=OUT/load1.json load2=OUT/load2.json ...
"""
import argparse
import json
import math
import statistics as st
import sys


def load(path):
    try:
        samples = json.load(open(path))["samples"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"{path}: not an eval JSON with samples ({e})")
    out = {}
    for s in samples:
        t = s.get("evidence", {}).get("timing", {})
        out[s["sample"]] = {
            "speedup": s.get("speedup"),
            "cand_ms": (t.get("candidate_event_ms") or {}).get("median"),
            "ref_ms": (t.get("reference_event_ms") or {}).get("median"),
            "during": t.get("trials_started_while_timed"),
            "ref_during": t.get("references_started_while_timed"),
            "voided": s.get("outcome") == "correct" and s.get("speedup") is None and "candidate_event_ms" in t,
        }
    return out


def median_abs_log(pairs):
    logs = [abs(math.log(b / a)) for a, b in pairs if a and b and a > 0 and b > 0]
    return (st.median(logs), len(logs)) if logs else (float("nan"), 0)


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
            both = [k for k in runs[a] if k in runs[b] and runs[a][k]["speedup"] and runs[b][k]["speedup"]]
            if not both:
                print(f"{b + ' / ' + a:20} {0:6d}")
                continue
            ratios = [runs[b][k]["speedup"] / runs[a][k]["speedup"] for k in both]
            sp, _ = median_abs_log([(runs[a][k]["speedup"], runs[b][k]["speedup"]) for k in both])
            cm, _ = median_abs_log([(runs[a][k]["cand_ms"], runs[b][k]["cand_ms"]) for k in both])
            rm, _ = median_abs_log([(runs[a][k]["ref_ms"], runs[b][k]["ref_ms"]) for k in both])
            off = sum(abs(x - 1) > 0.2 for x in ratios) / len(ratios)
            print(f"{b + ' / ' + a:20} {len(both):6d} {st.median(ratios):11.3f} {sp:13.3f} {off:8.2f} "
                  f"{cm:13.3f} {rm:12.3f}")
    walls = {}
    if args.walls:
        for line in open(args.walls):
            if line.strip():
                name, secs = line.split()
                walls[name] = float(secs)
    print()
    print(f"{'run':10} {'samples':>7} {'timed':>6} {'voided':>6} {'trials during timing':>20} "
          f"{'references during':>17} {'wall s':>7} {'samples/s':>9}")
    for name, r in runs.items():
        timed = [v for v in r.values() if v["speedup"]]
        during = [v["during"] for v in r.values() if v["during"] is not None]
        ref_during = [v["ref_during"] for v in r.values() if v["ref_during"] is not None]
        w = walls.get(name)
        print(f"{name:10} {len(r):7d} {len(timed):6d} {sum(v['voided'] for v in r.values()):6d} "
              f"{(st.mean(during) if during else float('nan')):20.2f} "
              f"{(st.mean(ref_during) if ref_during else float('nan')):17.2f} "
              f"{(w if w else float('nan')):7.1f} {(len(r) / w if w else float('nan')):9.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
