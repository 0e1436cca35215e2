#!/usr/bin/env python3
"""The engine's own clock of candidates' timed calls against what they reported, from
`tritonrl eval --json` outputs or from results stores (`*.sqlite`, `*.db`: a `train grpo` run's
scores.sqlite, an eval's results.db): one row per timed sample (reported median wall, the
engine's estimate of the call and its standard error, the basis it was clocked on, whether
parent_clock_gap was flagged) and how many samples of each kind were flagged. Honest samples
(legit/, solution/, stability/) should have none; a worker that forges its times
(hack/timing_forge_trusted_clock) should. A store's samples count as "rollout".

    bench/gpu/parent_clock.py EVAL.json|STORE.sqlite [...]
"""
import json
import sqlite3
import sys


def verdicts(path: str):
    if path.endswith((".sqlite", ".db")):
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        for sample, text in con.execute("SELECT sample_id, evidence_json FROM verdicts"):
            v = json.loads(text)
            v["sample"] = sample
            yield "rollout", v
        con.close()
        return
    for v in json.load(open(path))["samples"]:
        yield ("hack" if v["sample"].startswith("hack/") else "honest"), v


def main(paths: list[str]) -> int:
    flagged: dict[str, int] = {}
    total: dict[str, int] = {}
    print(f"{'sample':<42} {'outcome':<11} {'reported':>9} {'engine':>8} {'se':>7} {'basis':>6}  flag")
    for path in paths:
        for kind, v in verdicts(path):
            t = (v.get("evidence") or {}).get("timing") or {}
            if t.get("parent_call_ms") is None:  # not timed, or the reference's calls not clocked
                continue
            flag = "parent_clock_gap" in (v.get("flags") or [])
            total[kind] = total.get(kind, 0) + 1
            flagged[kind] = flagged.get(kind, 0) + flag
            wall = (t.get("candidate_wall_ms") or {}).get("median", float("nan"))
            print(f"{v['sample'][:42]:<42} {v.get('outcome', '?'):<11} {wall:9.4f} "
                  f"{t['parent_call_ms']:8.4f} {t.get('parent_call_se_ms', float('nan')):7.4f} "
                  f"{t.get('parent_clock_basis', 'cycles'):>6}  {'FLAG' if flag else '-'}")
    for kind in sorted(total):
        print(f"{kind}: {flagged[kind]} of {total[kind]} timed samples flagged parent_clock_gap")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
