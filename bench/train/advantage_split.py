#!/usr/bin/env python3
"""Where each E2 mode's advantages went, from the compact rollout TSVs that bench/results keeps
(compact_rollouts.py): per mode, the GRPO groups whose rollouts were all correct, mixed or all
wrong, how many rollouts carried a non-zero advantage on their plan and on their code tokens, and
the mean |advantage| there. An exploratory reading of the training signal, not an E2 endpoint.

  advantage_split.py BLOCK_DIR/rollouts_compact.tsv.gz [...]
"""
import collections
import csv
import gzip
import statistics
import sys


def groups_of(path):
    groups = collections.defaultdict(list)
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            groups[(r["mode"], r["step"], r["group"])].append(r)
    return groups


def advantage(r, key):
    return abs(float(r[key] or 0.0))


def main(paths):
    if not paths:
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    print("| rollouts | mode | groups | all correct | mixed | all wrong | plan adv != 0 | code adv != 0 "
          "| mean abs adv, plan | mean abs adv, code |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        groups = groups_of(path)
        for mode in sorted({k[0] for k in groups}):
            mine = [g for k, g in groups.items() if k[0] == mode]
            correct = [sum(r["outcome"] == "correct" for r in g) for g in mine]
            rows = [r for g in mine for r in g]
            plan = [advantage(r, "adv_plan") for r in rows]
            code = [advantage(r, "adv_code") for r in rows]
            print(f"| {path} | {mode} | {len(mine)} | {sum(c == len(g) for c, g in zip(correct, mine))} "
                  f"| {sum(0 < c < len(g) for c, g in zip(correct, mine))} | {correct.count(0)} "
                  f"| {sum(a > 1e-9 for a in plan)} of {len(rows)} | {sum(a > 1e-9 for a in code)} of {len(rows)} "
                  f"| {statistics.mean(plan):.3f} | {statistics.mean(code):.3f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
