#!/usr/bin/env python3
"""Where a GRPO step's scoring time goes (issue 35): one row per Score call of a run's store.

Two resources can bound a step's scoring on one GPU, and this prints both beside the call's wall:
  - fresh CUDA contexts, which the driver makes at a fixed rate however many processes ask (about
    6.8 a second on an H100, bench/RESULTS.md, eleventh session): `workers` is the processes the
    call started (samples run, not served from the cache or the same-code sharing), and
    `ctx_bound_s` = workers / CTX_RATE;
  - the timing lease, which lets one timed phase hold the GPU at a time: `lease_held_s` is the
    sum of the candidates' timing stages (from `go` to their last frame; stage_timings 'timing'),
    `lease_wait_s` the sum of their waits for it (evidence.timing.lease_wait_ms).
A call whose lease_held_s is near its wall is bound by timing; one whose ctx_bound_s is, by the
contexts. Also: the mean worker's start-up and device set-up, and how many workers were
pre-started (sandbox.spawn "+prestarted").

  scoring_split.py W/grpo/MODE_sSEED/scores.sqlite [--ctx-rate 6.8] [--skip 1]
Prints the rows, then medians over the calls after the first --skip (step 1 computes references).
"""
import argparse
import datetime
import json
import sqlite3
import statistics as st
import sys


def seconds_between(a, b):
    f = "%Y-%m-%dT%H:%M:%S.%fZ"
    return (datetime.datetime.strptime(b, f) - datetime.datetime.strptime(a, f)).total_seconds()


def calls(db):
    runs = db.execute("select id, started_at, ended_at from runs order by started_at").fetchall()
    for run_id, started, ended in runs:
        rows = db.execute(
            "select v.evidence_json, v.from_cache,"
            " max(case when s.stage = 'worker_wall' then s.seconds end),"
            " max(case when s.stage = 'timing' then s.seconds end),"
            " max(case when s.stage = 'startup' then s.seconds end),"
            " max(case when s.stage = 'phase_device_init' then s.seconds end)"
            " from verdicts v left join stage_timings s using (run_id, task_id, sample_id)"
            " where v.run_id = ? group by v.task_id, v.sample_id", (run_id,)).fetchall()
        workers, prestarted, held, wait = 0, 0, 0.0, 0.0
        starts, inits = [], []
        for evidence, from_cache, wall, timing, startup, init in rows:
            if from_cache or wall is None:
                continue
            workers += 1
            e = json.loads(evidence or "{}")
            held += timing or 0.0
            wait += (e.get("timing") or {}).get("lease_wait_ms", 0.0) / 1000.0
            if startup is not None:
                starts.append(startup)
            if init is not None:
                inits.append(init)
            prestarted += "+prestarted" in (e.get("sandbox") or {}).get("spawn", "")
        yield {"run": run_id, "samples": len(rows), "workers": workers, "prestarted": prestarted,
               "wall_s": seconds_between(started, ended) if ended else None,
               "lease_held_s": held, "lease_wait_s": wait,
               "start_s": st.mean(starts) if starts else None,
               "device_init_s": st.mean(inits) if inits else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--ctx-rate", type=float, default=6.8)
    ap.add_argument("--skip", type=int, default=1)
    a = ap.parse_args()
    try:
        db = sqlite3.connect(f"file:{a.store}?mode=ro", uri=True)
        rows = list(calls(db))
    except sqlite3.Error as e:
        sys.exit(f"{a.store}: {e}")
    fmt = lambda x: "-" if x is None else f"{x:.2f}"
    cols = ["call", "samples", "workers", "prestarted", "wall_s", "ctx_bound_s", "lease_held_s",
            "lease_wait_s", "start_s", "device_init_s"]
    print(" ".join(f"{c:>13}" for c in cols))
    for i, r in enumerate(rows, 1):
        r["ctx_bound_s"] = r["workers"] / a.ctx_rate
        print(" ".join(f"{v:>13}" for v in [str(i), str(r["samples"]), str(r["workers"]), str(r["prestarted"]),
                                             fmt(r["wall_s"]), fmt(r["ctx_bound_s"]), fmt(r["lease_held_s"]),
                                             fmt(r["lease_wait_s"]), fmt(r["start_s"]), fmt(r["device_init_s"])]))
    later = [r for r in rows[a.skip:] if r["wall_s"] is not None]
    if later:
        med = lambda k: st.median(r[k] for r in later if r[k] is not None) if any(
            r[k] is not None for r in later) else None
        print(f"median over calls {a.skip + 1}..{len(rows)}: wall {fmt(med('wall_s'))} s, workers "
              f"{fmt(med('workers'))}, contexts' bound {fmt(med('ctx_bound_s'))} s, lease held "
              f"{fmt(med('lease_held_s'))} s, lease waits {fmt(med('lease_wait_s'))} s")


if __name__ == "__main__":
    main()
