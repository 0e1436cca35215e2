"""Single-sample latency of the warm service (issue 15's "at most 3 s on small tasks").

Starts `tritonrl serve` (cache off), and for each task of a list of small level-1 tasks sends its
solution as a one-sample POST /v1/evaluate, waiting for the verdict, one request at a time: the
first request of a task also runs its reference (cold), the next ones find it kept (warm; the
scorer keeps a task's reference between calls, docs/scoring.md). Each request's code differs by a
trailing comment, so no verdict comes from a cache. Prints a table (task, cold s, warm median s,
outcomes) and the median over all warm requests; writes $OUT/latency.json.

  BIN=build OUT=/tmp/out python3 bench/serve/latency.py [--device cuda] [--variants medium] [--repeats 5]
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Server, bench_dirs  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMALL = ["level1/1_ReLU", "level1/2_AddBroadcast", "level1/3_Softmax", "level1/4_RowSum", "level1/10_SiLU",
         "level1/11_LeakyReLU", "level1/15_RowMax", "level1/20_RMSNorm"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--variants", default="medium")
    ap.add_argument("--repeats", type=int, default=5, help="warm requests per task")
    ap.add_argument("--tasks", default=",".join(SMALL))
    ap.add_argument("--jobs", type=int, default=16)
    args = ap.parse_args()
    bin_dir, out, tmp = bench_dirs()
    server = Server(bin_dir, os.path.join(tmp, "state"),
                    ["--tasks", os.path.join(ROOT, "tasks"), "--device", args.device, "--jobs", str(args.jobs),
                     "--no-cache", "--work-dir", os.path.join(tmp, "work")] +
                    (["--variants", args.variants] if args.variants else []),
                    os.path.join(out, "latency_serve.log"))
    rows = []
    try:
        for task in args.tasks.split(","):
            code = open(os.path.join(ROOT, "tasks", "solutions", task + ".py")).read()
            times, outcomes, kept, phases = [], [], [], []
            for i in range(1 + args.repeats):
                t0 = time.time()
                job = server.post("/v1/evaluate", {"samples": [
                    {"task": task, "id": "r%d" % i, "code": code + "\n# request %d\n" % i}]})["job"]
                while True:
                    j = server.get("/v1/jobs/%s?wait=120" % job)
                    if j["state"] != "running":
                        break
                times.append(time.time() - t0)
                r = (j.get("results") or [None])[0] or {}
                outcomes.append(r.get("outcome"))
                kept.append(bool(((r.get("evidence") or {}).get("pool") or {}).get("reference_kept")))
                phases.append(r.get("timings_ms") or {})
            warm = times[1:]
            # Where a warm request's time went, by the verdict's own stage and phase timings (ms).
            keys = sorted({k for p in phases[1:] for k in p if isinstance(p[k], (int, float))})
            warm_phases = {k: round(statistics.median(p.get(k, 0) for p in phases[1:])) for k in keys}
            rows.append({"task": task, "cold_s": round(times[0], 3), "warm_s": [round(t, 3) for t in warm],
                         "warm_median_s": round(statistics.median(warm), 3) if warm else None,
                         "outcomes": outcomes, "reference_kept": kept, "warm_phases_ms": warm_phases})
            print("%-26s cold %6.2f s  warm median %6.2f s  %s  kept %s" % (
                task, times[0], rows[-1]["warm_median_s"] or 0, sorted(set(map(str, outcomes))), kept[1:]),
                flush=True)
            print("    warm medians (ms): " + ", ".join("%s %d" % kv for kv in warm_phases.items()), flush=True)
    finally:
        server.stop()
    warm_all = [t for r in rows for t in r["warm_s"]]
    result = {"device": args.device, "variants": args.variants, "jobs": args.jobs, "rows": rows,
              "warm_median_s": round(statistics.median(warm_all), 3) if warm_all else None,
              "cold_median_s": round(statistics.median(r["cold_s"] for r in rows), 3) if rows else None}
    json.dump(result, open(os.path.join(out, "latency.json"), "w"), indent=1)
    print("latency: %d tasks, warm median %s s (goal <= 3 s), cold median %s s" % (
        len(rows), result["warm_median_s"], result["cold_median_s"]))


if __name__ == "__main__":
    main()
