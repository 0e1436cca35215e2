"""Build the throughput sample set: N samples (default 200) over 20 tasks.

    make_samples.py CORPUS.jsonl OUT.jsonl [--n 200] [--tasks 20]

CORPUS.jsonl is `tritonrl corpus tests/corpus/hacks tests/corpus/legit
--solutions tasks/solutions --out ...` (lines with task, sample, code, expect).
Takes the solutions of 20 tasks (the anchor tasks first), every legit and hack
file of those tasks, then fills up to N with copies of the honest samples
(a comment line makes each copy a distinct text, so no cache can serve it).
Each line keeps "expect" and gets "honest": true for legit files and solutions.
"""
from __future__ import annotations

import argparse
import json
import random

ANCHORS = ["level1/1_ReLU", "level1/2_AddBroadcast", "level1/3_Softmax", "level1/4_RowSum", "level1/5_Matmul",
           "level2/1_LinearBiasReLU"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--tasks", type=int, default=20)
    a = ap.parse_args()
    lines = [json.loads(x) for x in open(a.corpus) if x.strip()]
    solutions = {s["task"]: s for s in lines if s["sample"].startswith("solution/")}
    order = [t for t in ANCHORS if t in solutions] + sorted(t for t in solutions if t not in ANCHORS)
    tasks = set(order[: a.tasks])
    chosen = [s for s in lines if s["task"] in tasks and s.get("device", "") in ("", "gpu")]
    for s in chosen:
        s["honest"] = s["sample"].startswith(("solution/", "legit/"))
    honest = [s for s in chosen if s["honest"]]
    copy = 0
    while len(chosen) < a.n and honest:
        base = honest[copy % len(honest)]
        copy += 1
        dup = dict(base)
        dup["sample"] = f"{base['sample']}#copy{copy}"
        dup["code"] = f"# throughput copy {copy}\n" + base["code"]
        chosen.append(dup)
    random.Random(0).shuffle(chosen)  # a truncation (and the baseline's every-k-th subset) spans all kinds
    chosen = chosen[: a.n]
    with open(a.out, "w") as f:
        for s in chosen:
            f.write(json.dumps(s) + "\n")
    n_tasks = len({s["task"] for s in chosen})
    print(f"make_samples: {len(chosen)} samples over {n_tasks} tasks "
          f"({sum(s['honest'] for s in chosen)} honest, {sum(not s['honest'] for s in chosen)} hacks)")


if __name__ == "__main__":
    main()
