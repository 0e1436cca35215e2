#!/usr/bin/env python3
"""The compact form of E2's rollout logs that bench/results keeps (one gzip TSV per lease).

A GRPO run's rollouts.jsonl holds every prompt and response (about 6 MB a mode for E2's 24 steps);
what the analyses after a lease read is a few fields a rollout, plus the hash of its code block
(the scorer's same-code key; same_code_speedups.py computes it the same way).

  compact_rollouts.py OUT.tsv.gz MODE=W/grpo/MODE_sSEED/rollouts.jsonl [MODE=PATH ...]
"""
import gzip
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from same_code_speedups import code_sha, rollout_records  # noqa: E402

COLUMNS = ["mode", "step", "group", "task", "code_sha", "outcome", "speedup", "r_correct",
           "r_speedup", "adv_plan", "adv_code", "speedup_imputed", "flags"]


def number(v, digits):
    return "" if v is None else f"{float(v):.{digits}f}"


def rows(mode, path):
    for r in rollout_records(path):
        yield [mode, str(r["step"]), str(r["group"]), r["task"], code_sha(r["response"]), r["outcome"],
               number(r.get("speedup"), 4), number(r.get("r_correct"), 1), number(r.get("r_speedup"), 4),
               number(r.get("adv_plan"), 4), number(r.get("adv_code"), 4),
               "1" if r.get("speedup_imputed") else "0", ",".join(r.get("flags") or [])]


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    with gzip.open(argv[1], "wt") as out:
        out.write("\t".join(COLUMNS) + "\n")
        for arg in argv[2:]:
            mode, path = arg.split("=", 1)
            for r in rows(mode, path):
                out.write("\t".join(r) + "\n")


if __name__ == "__main__":
    main(sys.argv)
