#!/usr/bin/env python3
"""The engine's own clock of candidates' timed calls against what they reported, from
`tritonrl eval --json` outputs: one row per timed sample (reported median wall, the engine's
estimate of the call and its standard error, whether parent_clock_gap was flagged) and how many
samples of each kind were flagged. Honest samples (legit/, solution/, stability/) should have
none; a worker that forges its times (hack/timing_forge_trusted_clock) should.

    bench/gpu/parent_clock.py EVAL.json [EVAL.json ...]
"""
import json
import sys


def main(paths: list[str]) -> int:
    flagged = {"honest": 0, "hack": 0}
    total = {"honest": 0, "hack": 0}
    print(f"{'sample':<42} {'outcome':<11} {'reported':>9} {'engine':>8} {'se':>7}  flag")
    for path in paths:
        for v in json.load(open(path))["samples"]:
            t = (v.get("evidence") or {}).get("timing") or {}
            if t.get("parent_call_ms") is None:  # not timed, or the reference's calls not clocked
                continue
            kind = "hack" if v["sample"].startswith("hack/") else "honest"
            flag = "parent_clock_gap" in (v.get("flags") or [])
            total[kind] += 1
            flagged[kind] += flag
            wall = (t.get("candidate_wall_ms") or {}).get("median", float("nan"))
            print(f"{v['sample'][:42]:<42} {v['outcome']:<11} {wall:9.4f} {t['parent_call_ms']:8.4f} "
                  f"{t.get('parent_call_se_ms', float('nan')):7.4f}  {'FLAG' if flag else '-'}")
    for kind in ("honest", "hack"):
        print(f"{kind}: {flagged[kind]} of {total[kind]} timed samples flagged parent_clock_gap")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
