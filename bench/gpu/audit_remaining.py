#!/usr/bin/env python3
"""Tasks of a suite that earlier audit tables (tritonrl tasks audit output, possibly cut short by
a call's time limit) have not settled yet: no row ends ok, weak or fail. Prints them
comma-separated for `--tasks`, the slow ones (a timeout row) last.

  bench/gpu/audit_remaining.py KB/level1 bench/results/gpu3_audit_kernelbench_level1.txt ...
"""
import sys
from pathlib import Path

SETTLED = {"ok", "weak", "fail"}


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    level_dir = Path(sys.argv[1])
    level = level_dir.name
    tasks = sorted(f"{level}/{p.stem}" for p in level_dir.glob("*.py"))
    if not tasks:
        print(f"{level_dir}: no task files", file=sys.stderr)
        return 1
    status: dict[str, set[str]] = {}
    for table in sys.argv[2:]:
        for line in Path(table).read_text().splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 3 and parts[0].startswith(level + "/"):
                status.setdefault(parts[0], set()).add(parts[2])
    open_tasks = [t for t in tasks if not (status.get(t, set()) & SETTLED)]
    slow = [t for t in open_tasks if "timeout" in status.get(t, set())]
    rest = [t for t in open_tasks if t not in slow]
    print(f"{len(tasks) - len(open_tasks)} of {len(tasks)} settled, {len(open_tasks)} open "
          f"({len(slow)} timed out before)", file=sys.stderr)
    print(",".join(rest + slow))
    return 0


if __name__ == "__main__":
    sys.exit(main())
