#!/usr/bin/env python3
"""The host-step count of each sample (docs/eval.md, "The host-step budget") from `tritonrl eval
--json` outputs or results stores (`*.sqlite`, `*.db`): per kind (honest: legit/, solution/;
hack; rollout for a store's samples) the count of samples, the median and the largest count of
steps one forward call made, the samples with the most, and those failed by the budget. Honest
samples should stay well below the budget at one launch (264); the measurement on the GPU path's
medium variants is what bench/gpu/OWED.md row 3c owes.

    bench/gpu/host_steps.py EVAL.json|STORE.sqlite [...]
"""
import json
import sqlite3
import statistics
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
    steps: dict[str, list[tuple[int, str]]] = {}
    over: list[str] = []
    for path in paths:
        for kind, v in verdicts(path):
            guards = (v.get("evidence") or {}).get("guards") or {}
            if "host_steps" not in guards:  # the candidate never ran a trial
                continue
            steps.setdefault(kind, []).append((int(guards["host_steps"]), v["sample"]))
            for r in v.get("reasons") or []:
                if r.get("code") == "host_compute" and "host steps" in r.get("message", ""):
                    over.append(f"{kind:<7} {v['sample']}: {r['message'][:160]}")
    print(f"{'kind':<8} {'samples':>7} {'median':>7} {'max':>8}  most steps")
    for kind, rows in sorted(steps.items()):
        rows.sort(reverse=True)
        top = ", ".join(f"{s} {n}" for n, s in rows[:3])
        print(f"{kind:<8} {len(rows):>7} {statistics.median(n for n, _ in rows):>7g} {rows[0][0]:>8}  {top}")
    print(f"\nfailed by the budget: {len(over)}")
    for line in over:
        print(line)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
