"""Checks and summaries for bench/gpu/measure.sh (no torch needed).

    measure_check.py corpus RESULT.json SAMPLES.jsonl static|nostatic OUT.json
    measure_check.py stability RESULT.json OUT.json
    measure_check.py speedups RESULT.json DOBENCH.json OUT.json
    measure_check.py throughput ENGINE.json ENGINE_WALL_S SAMPLES.jsonl BASELINE.jsonl OUT.json
    measure_check.py baselines EAGER.json COMPILE.json OUT.json
    measure_check.py summary DIR

Each check writes a small JSON with "ok" and its numbers, prints a readable
block, and exits 0 (measure.sh continues past failures; the summary says).
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def load_json(path):
    try:
        return json.load(open(path))
    except Exception as e:  # noqa: BLE001
        print(f"  cannot read {path}: {e}")
        return None


def samples_by_id(result):
    return {s["sample"]: s for s in (result or {}).get("samples", [])}


def labels(line: dict) -> dict:
    """expect (full pipeline) and no-static expectation from the file header."""
    expect = line.get("expect", "")
    nostatic = expect
    for ln in line.get("code", "").splitlines():
        if not ln.startswith("#"):
            break
        key, _, value = ln[1:].partition(":")
        if key.strip() == "no-static":
            nostatic = value.strip()
    return {"static": expect, "nostatic": nostatic}


def meets(expect: str, v: dict) -> bool:
    w = expect.split()
    outcome = v.get("outcome", "")
    flags = v.get("flags", []) or []
    static_codes = [r.get("code") for r in v.get("reasons", []) if r.get("stage") == "static"]
    if w == ["correct"]:
        return outcome == "correct"
    if len(w) == 2 and w[0] == "static":
        return outcome in ("invalid_syntax", "invalid_functionality") and w[1] in static_codes
    if len(w) == 2 and w[0] == "runtime":
        return not static_codes and (outcome == w[1] or w[1] in flags)
    if len(w) == 3 and w[0] == "runtime" and w[2].startswith("reason="):
        # 'runtime incorrect reason=CODE': that outcome, caught (among others) for that reason.
        codes = [r.get("code") for r in v.get("reasons", [])]
        return not static_codes and outcome == w[1] and w[2][len("reason="):] in codes
    return False


def first_reason(v):
    rs = v.get("reasons") or []
    return f"[{rs[0].get('stage')}] {rs[0].get('code')}: {rs[0].get('message', '')[:160]}" if rs else ""


def cmd_corpus(result_path, samples_path, mode, out_path):
    result = load_json(result_path)
    by_id = samples_by_id(result)
    rows, ok_all = [], result is not None
    for line in (json.loads(x) for x in open(samples_path) if x.strip()):
        expect = labels(line)[mode]
        v = by_id.get(line["sample"])
        ok = v is not None and meets(expect, v)
        ok_all &= ok
        t = (v or {}).get("evidence", {}).get("timing", {})
        rows.append({"sample": line["sample"], "expect": expect, "outcome": (v or {}).get("outcome", "MISSING"),
                     "flags": (v or {}).get("flags", []), "ok": ok, "reason": first_reason(v or {}),
                     "speedup": t.get("speedup_measured"), "inconsistencies": t.get("inconsistencies")})
    print(f"  corpus ({mode}):")
    for r in rows:
        print(f"    {'ok ' if r['ok'] else 'BAD'} {r['sample']:<36} expect {r['expect']:<34} got {r['outcome']}"
              f" {','.join(r['flags'])}  {'' if r['ok'] else r['reason']}")
        if r["inconsistencies"]:
            print(f"        timing: {r['inconsistencies']}")
    json.dump({"ok": ok_all, "rows": rows}, open(out_path, "w"), indent=1)


def timing_of(v):
    return (v.get("evidence") or {}).get("timing") or {}


def cmd_stability(result_path, out_path):
    result = load_json(result_path)
    medians, walls, speedups = [], [], []
    for v in (result or {}).get("samples", []):
        t = timing_of(v)
        if v.get("outcome") == "correct" and t.get("candidate_event_ms"):
            medians.append(t["candidate_event_ms"]["median"])
            speedups.append(t.get("speedup_measured"))
        else:
            print(f"  not timed: {v.get('sample')} {v.get('outcome')} {first_reason(v)}")
    cv = statistics.stdev(medians) / statistics.mean(medians) if len(medians) > 1 else None
    ok = cv is not None and len(medians) >= 10 and cv <= 0.02
    print(f"  stability: {len(medians)} evaluations, median times {['%.4f' % m for m in medians]} ms")
    print(f"  CV of the median = {100 * cv:.2f}% (goal <= 2%)" if cv is not None else "  CV: n/a")
    # The engine's own clock of each call (evidence since evaluator v5; against the reference's
    # cycles since v9) on an honest
    # kernel: how far it strays from the reported wall time, and any (false) parent_clock_gap.
    parent = [(timing_of(v).get("parent_call_ms"), (timing_of(v).get("candidate_wall_ms") or {}).get("median"))
              for v in (result or {}).get("samples", [])]
    parent = [(p, w) for p, w in parent if p is not None and w]
    flagged = sum("parent_clock_gap" in (v.get("flags") or []) for v in (result or {}).get("samples", []))
    if parent:
        print(f"  engine clock per call / reported wall: {['%.3f' % (p / w) for p, w in parent]}; "
              f"parent_clock_gap on {flagged} honest runs")
    json.dump({"ok": ok, "n": len(medians), "cv": cv, "medians_ms": medians, "speedups": speedups,
               "parent_over_reported": [p / w for p, w in parent], "parent_clock_gap_flags": flagged},
              open(out_path, "w"), indent=1)


def cmd_speedups(result_path, dobench_path, out_path):
    result = load_json(result_path)
    db = load_json(dobench_path) or {}
    rows, ok_all = [], result is not None and bool(db)
    for v in (result or {}).get("samples", []):
        t = timing_of(v)
        ours = t.get("speedup_measured")
        theirs = (db.get(v["task"]) or {}).get("speedup")
        agree = ours is not None and theirs is not None and abs(ours / theirs - 1) <= 0.05
        ok_all &= agree
        rows.append({"task": v["task"], "ours": ours, "do_bench": theirs, "agree": agree,
                     "ours_ms": (t.get("candidate_event_ms") or {}).get("median"),
                     "ref_ms": (t.get("reference_event_ms") or {}).get("median"),
                     "db_ms": (db.get(v["task"]) or {}).get("candidate_ms"),
                     "db_ref_ms": (db.get(v["task"]) or {}).get("reference_ms"), "outcome": v.get("outcome")})
    print("  speedup, ours vs triton.testing.do_bench (median, L2 flushed):")
    for r in rows:
        fmt = lambda x: "n/a" if x is None else f"{x:.3f}"  # noqa: E731
        print(f"    {'ok ' if r['agree'] else 'BAD'} {r['task']:<28} ours {fmt(r['ours'])}x ({fmt(r['ours_ms'])} / ref "
              f"{fmt(r['ref_ms'])} ms)  do_bench {fmt(r['do_bench'])}x ({fmt(r['db_ms'])} / ref {fmt(r['db_ref_ms'])} ms)"
              f"  {r['outcome']}")
    json.dump({"ok": ok_all, "rows": rows}, open(out_path, "w"), indent=1)


def cmd_throughput(engine_path, engine_wall, samples_path, baseline_path, out_path):
    result = load_json(engine_path)
    engine_wall = float(engine_wall)
    samples = [json.loads(x) for x in open(samples_path) if x.strip()]
    honest = {s["sample"] for s in samples if s.get("honest")}
    by_id = samples_by_id(result)
    base = [json.loads(x) for x in open(baseline_path) if x.strip()] if Path(baseline_path).exists() else []
    base_wall = sum(b.get("wall_s", 0) for b in base)
    n_engine = len(by_id)
    eng_rate = 60 * n_engine / engine_wall if engine_wall > 0 else 0
    base_rate = 60 * len(base) / base_wall if base_wall > 0 else 0
    agree = disagree = 0
    diffs = []
    for b in base:
        if b["sample"] in honest and b["sample"] in by_id:
            e = by_id[b["sample"]]["outcome"]
            if (e == "correct") == (b["outcome"] == "correct"):
                agree += 1
            else:
                disagree += 1
                diffs.append((b["sample"], e, b["outcome"], first_reason(by_id[b["sample"]]), b.get("why", "")))
    stages: dict[str, float] = {}
    reference_by_task: dict[tuple, float] = {}
    for v in by_id.values():
        for k, ms in (v.get("timings_ms") or {}).items():
            if not isinstance(ms, (int, float)) or k in ("total", "worker_wall"):
                continue
            if k == "reference" or k.startswith("reference_phase_"):  # one run per task, shared
                key = (v["task"], k)
                reference_by_task[key] = max(reference_by_task.get(key, 0), ms / 1000)
            else:
                stages[k] = stages.get(k, 0) + ms / 1000
    for (_, k), s in reference_by_task.items():
        name = "reference (once per task)" if k == "reference" else k + " (once per task)"
        stages[name] = stages.get(name, 0) + s
    # Time spent waiting for the GPU's timing lease (the one serialised resource).
    lease_wait = sum(float((v.get("evidence") or {}).get("timing", {}).get("lease_wait_ms") or 0)
                     for v in by_id.values()) / 1000
    if lease_wait:
        stages["lease wait"] = lease_wait
    bstages: dict[str, float] = {}
    for b in base:
        for k, s in (b.get("stages") or {}).items():
            bstages[k] = bstages.get(k, 0) + s
    outcomes: dict[str, int] = {}
    for v in by_id.values():
        outcomes[v["outcome"]] = outcomes.get(v["outcome"], 0) + 1
    # Honest samples the engine's own clock flagged under a full load of workers (should be none).
    honest_gap = sorted(s for s, v in by_id.items() if s in honest and "parent_clock_gap" in (v.get("flags") or []))
    ratio = eng_rate / base_rate if base_rate else None
    ok = ratio is not None and ratio >= 5 and disagree == 0
    print(f"  engine:   {n_engine} samples in {engine_wall:.1f}s = {eng_rate:.1f} samples/min; {outcomes}")
    print(f"  baseline: {len(base)} samples in {base_wall:.1f}s = {base_rate:.2f} samples/min (one fresh process "
          f"per sample, sequential)")
    print(f"  ratio: {'n/a' if ratio is None else f'{ratio:.1f}x'} (goal >= 5x); honest verdicts: {agree} agree, "
          f"{disagree} differ")
    for d in diffs:
        print(f"    differs: {d}")
    print(f"  honest samples flagged parent_clock_gap: {len(honest_gap)} {honest_gap[:5]}")
    print("  engine time by stage (sum over samples, s; stages overlap across parallel jobs): "
          + ", ".join(f"{k} {v:.1f}" for k, v in sorted(stages.items(), key=lambda kv: -kv[1])))
    pool = pool_use(by_id.values())
    if pool:
        print(f"  pool: {pool['samples']} samples run on {pool['threads']} threads over {pool['span_s']:.1f} s, "
              f"threads busy {pool['busy_share']:.0%} of that span; last sample began at "
              f"{pool['last_start_s']:.1f} s; kernel share by {pool['share_methods']}")
    print("  baseline time by stage (s): " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(bstages.items(),
                                                                                          key=lambda kv: -kv[1])))
    json.dump({"ok": ok, "engine_samples": n_engine, "engine_wall_s": engine_wall, "engine_rate": eng_rate,
               "baseline_samples": len(base), "baseline_wall_s": base_wall, "baseline_rate": base_rate,
               "ratio": ratio, "honest_agree": agree, "honest_differ": disagree, "engine_stages_s": stages,
               "baseline_stages_s": bstages, "engine_outcomes": outcomes,
               "honest_parent_clock_gap": honest_gap, "pool": pool}, open(out_path, "w"), indent=1)


def pool_use(verdicts) -> dict:
    """How busy the engine's threads were (evidence.pool: each run sample's thread and its
    start and end since the pool began, its task's reference included when it ran it)."""
    spans = [(v["evidence"]["pool"], v) for v in verdicts if "pool" in (v.get("evidence") or {})]
    if not spans:
        return {}
    threads = {p["thread"] for p, _ in spans}
    start = min(p["start_ms"] for p, _ in spans)
    end = max(p["end_ms"] for p, _ in spans)
    busy = sum(p["end_ms"] - p["start_ms"] for p, _ in spans)
    methods: dict[str, int] = {}
    for _, v in spans:
        m = (v.get("evidence") or {}).get("timing", {}).get("profile_method")
        if m:
            methods[m] = methods.get(m, 0) + 1
    span = max(1e-9, end - start)
    return {"samples": len(spans), "threads": len(threads), "span_s": span / 1000,
            "busy_share": busy / (span * len(threads)), "last_start_s": max(p["start_ms"] for p, _ in spans) / 1000,
            "share_methods": methods}


def cmd_baselines(eager_path, compile_path, out_path):
    """Step 5: compute-bound solutions timed against the eager and the torch.compile reference;
    the reference's FLOP count must reach the verdict and give a roofline floor."""
    eager, comp = samples_by_id(load_json(eager_path)), samples_by_id(load_json(compile_path))
    rows = []
    for sid, v in sorted(eager.items()):
        c = comp.get(sid, {})
        t, tc = timing_of(v), timing_of(c)
        rows.append({"sample": sid, "outcome_eager": v.get("outcome"), "outcome_compile": c.get("outcome"),
                     "speedup_eager": v.get("speedup"), "speedup_compile": c.get("speedup"),
                     "reference_flops": t.get("reference_flops"), "roofline_floor_ms": t.get("roofline_floor_ms"),
                     "reference_ms_eager": (t.get("reference_event_ms") or {}).get("median"),
                     "reference_ms_compile": (tc.get("reference_event_ms") or {}).get("median"),
                     "implausible": v.get("evidence", {}).get("timing", {}).get("implausible"),
                     "reason_compile": first_reason(c)})
    ok = bool(rows) and all(r["outcome_eager"] == "correct" and r["outcome_compile"] == "correct"
                            and (r["reference_flops"] or 0) > 0 and r["roofline_floor_ms"] for r in rows)
    print("  baselines (eager vs torch.compile reference) and the FLOPs roofline:")
    for r in rows:
        print(f"    {r['sample']:<40} eager {r['outcome_eager']} {r['speedup_eager']}x (ref "
              f"{r['reference_ms_eager']} ms); compile {r['outcome_compile']} {r['speedup_compile']}x (ref "
              f"{r['reference_ms_compile']} ms); FLOPs {r['reference_flops']}, floor {r['roofline_floor_ms']} ms"
              + (f"; {r['reason_compile']}" if r["outcome_compile"] != "correct" else ""))
    json.dump({"ok": ok, "rows": rows}, open(out_path, "w"), indent=1)


def cmd_summary(d):
    d = Path(d)
    print("\n================ measure.sh summary ================")
    print(f"{'check':<34} {'result':<6} detail")
    for name, fn in [("1a hacks, full pipeline", "corpus_static.json"), ("1b hacks, --no-static", "corpus_nostatic.json")]:
        r = load_json(d / fn) if (d / fn).exists() else None
        if r is None:
            print(f"{name:<34} {'n/a':<6} step did not run")
            continue
        bad = [x["sample"] for x in r["rows"] if not x["ok"]]
        print(f"{name:<34} {'PASS' if r['ok'] else 'FAIL':<6} {len(r['rows']) - len(bad)}/{len(r['rows'])} as labelled"
              + (f"; wrong: {', '.join(bad)}" if bad else ""))
    r = load_json(d / "stability.json") if (d / "stability.json").exists() else None
    print(f"{'2 stability (CV of median, 10x)':<34} " + ("n/a    step did not run" if r is None else
          f"{'PASS' if r['ok'] else 'FAIL':<6} CV {100 * r['cv']:.2f}% over {r['n']} runs" if r.get("cv") is not None
          else "FAIL   no timed runs"))
    r = load_json(d / "speedups.json") if (d / "speedups.json").exists() else None
    if r is None:
        print(f"{'3 speedup vs do_bench (5%)':<34} n/a    step did not run")
    else:
        det = "; ".join(f"{x['task'].split('/')[-1]} {x['ours'] or 0:.2f}/{x['do_bench'] or 0:.2f}" for x in r["rows"])
        print(f"{'3 speedup vs do_bench (5%)':<34} {'PASS' if r['ok'] else 'FAIL':<6} ours/do_bench: {det}")
    r = load_json(d / "throughput.json") if (d / "throughput.json").exists() else None
    if r is None:
        print(f"{'4 throughput vs baseline (5x)':<34} n/a    step did not run")
    else:
        ratio = "n/a" if r["ratio"] is None else f"{r['ratio']:.1f}x"
        print(f"{'4 throughput vs baseline (5x)':<34} {'PASS' if r['ok'] else 'FAIL':<6} engine {r['engine_rate']:.1f}/min,"
              f" baseline {r['baseline_rate']:.2f}/min = {ratio}; honest verdicts differ: {r['honest_differ']}")
    r = load_json(d / "baselines.json") if (d / "baselines.json").exists() else None
    if r is None:
        print(f"{'5 compile baseline + FLOPs floor':<34} n/a    step did not run")
    else:
        det = "; ".join(f"{x['sample'].split('/')[-1]} {x['speedup_eager'] or 0:.2f}/{x['speedup_compile'] or 0:.2f}"
                        for x in r["rows"])
        print(f"{'5 compile baseline + FLOPs floor':<34} {'PASS' if r['ok'] else 'FAIL':<6} eager/compile speedups: {det}")


def main(argv):
    cmd = argv[1]
    if cmd == "corpus":
        cmd_corpus(*argv[2:6])
    elif cmd == "stability":
        cmd_stability(*argv[2:4])
    elif cmd == "speedups":
        cmd_speedups(*argv[2:5])
    elif cmd == "throughput":
        cmd_throughput(*argv[2:7])
    elif cmd == "baselines":
        cmd_baselines(*argv[2:5])
    elif cmd == "summary":
        cmd_summary(argv[2])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except Exception as e:  # noqa: BLE001 - measure.sh continues; say what broke
        import traceback

        traceback.print_exc()
        print(f"measure_check {sys.argv[1:2]}: {e}")
    sys.exit(0)
