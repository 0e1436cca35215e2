"""Copy a task suite keeping ONE shape variant per task (benchmarks only).

    derive_suite.py SRC DST --keep medium [--set level1/1_ReLU:batch_size=8192,dim=8192 ...]

The GPU engine checks every variant of a task; the measurement benchmarks need
many evaluations in a few minutes, so they run on a copy of the suite where
each task's VARIANTS literal is replaced by {KEEP: shapes} (tasks without the
variant keep their first one), with optional shape overrides. The module's
default constants are left alone (the runner applies the variant).
"""
from __future__ import annotations

import argparse
import ast
import shutil
from pathlib import Path


def parse_sets(items: list[str]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for item in items:
        task, _, assigns = item.partition(":")
        for a in assigns.split(","):
            k, _, v = a.partition("=")
            out.setdefault(task, {})[k.strip()] = int(v)
    return out


def rewrite(text: str, keep: str, overrides: dict[str, int]) -> str:
    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "VARIANTS" for t in node.targets):
            table = ast.literal_eval(node.value)
            name = keep if keep in table else next(iter(table))
            shapes = dict(table[name])
            shapes.update(overrides)
            lines = text.splitlines(keepends=True)
            start, end = node.lineno - 1, node.end_lineno
            return "".join(lines[:start]) + f"VARIANTS = {{{name!r}: {shapes!r}}}\n" + "".join(lines[end:])
    if overrides:  # no VARIANTS: add one overriding the module constants
        return text + f"\nVARIANTS = {{'default': {overrides!r}}}\n"
    return text


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--keep", default="medium")
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    src, dst = Path(a.src), Path(a.dst)
    sets = parse_sets(a.set)
    if dst.exists():
        shutil.rmtree(dst)
    for f in sorted(src.rglob("*.py")):
        rel = f.relative_to(src)
        if rel.parts[0] == "solutions":
            continue
        out = dst / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        task_id = rel.with_suffix("").as_posix()
        out.write_text(rewrite(f.read_text(), a.keep, sets.get(task_id, {})))
    for f in src.iterdir():  # suite metadata files, if any
        if f.is_file() and f.suffix != ".py":
            shutil.copy(f, dst / f.name)


if __name__ == "__main__":
    main()
