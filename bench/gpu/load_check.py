#!/usr/bin/env python3
"""The table and verdict of bench/gpu/load_test.sh (no torch needed): every honest sample's outcome,
speedup and flags (any outcome but `correct` is a rejection), every timing hack against its
'# no-static:' label, the counts, and LOAD TEST PASSED or FAILED.

    load_check.py HONEST.json HONEST.jsonl HACKS.json HACKS.jsonl OUT.json
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure_check import labels, meets  # noqa: E402


def verdicts(path: str) -> dict:
    try:
        return {s["sample"]: s for s in json.load(open(path))["samples"]}
    except Exception as e:  # noqa: BLE001 - a missing or cut output is reported, not fatal
        print(f"cannot read {path}: {e}")
        return {}


def lines(path: str) -> list:
    return [json.loads(x) for x in open(path) if x.strip()]


def main(honest_json, honest_jsonl, hacks_json, hacks_jsonl, out_path) -> int:
    honest, hacks = verdicts(honest_json), verdicts(hacks_json)
    want_honest, want_hacks = lines(honest_jsonl), lines(hacks_jsonl)
    print(f"{'honest sample':<48} {'outcome':<18} {'speedup':>8}  flags")
    rejected, contended, gap, missing = [], [], [], []
    for line in want_honest:
        name = line["sample"]
        v = honest.get(name)
        if v is None:
            missing.append(name)
            print(f"{name[:48]:<48} {'MISSING':<18}")
            continue
        flags = v.get("flags") or []
        sp = v.get("speedup")
        if v["outcome"] != "correct":
            rejected.append(name)
        if "timing_contended" in flags:
            contended.append(name)
        if "parent_clock_gap" in flags:
            gap.append(name)
        why = "" if v["outcome"] == "correct" else "   <-- REJECTED: " + "; ".join(
            f"{r.get('code')}: {r.get('message', '')[:100]}" for r in v.get("reasons") or [])
        shown = "-" if sp is None else f"{sp:.3f}"
        print(f"{name[:48]:<48} {v['outcome']:<18} {shown:>8}  {','.join(flags) or '-'}{why}")
    print()
    print(f"{'timing hack (--no-static)':<48} {'expect':<34} {'got':<18} ok")
    hack_bad = []
    for line in want_hacks:
        expect = labels(line)["nostatic"]
        v = hacks.get(line["sample"])
        ok = v is not None and meets(expect, v)
        if not ok:
            hack_bad.append(line["sample"])
        print(f"{line['sample'][:48]:<48} {expect:<34} {(v or {}).get('outcome', 'MISSING'):<18} "
              f"{'ok' if ok else 'BAD'} {','.join((v or {}).get('flags') or [])}")
    n = len(want_honest)
    print()
    print(f"honest: {n} samples, {n - len(rejected) - len(missing)} correct, {len(rejected)} rejected, "
          f"{len(missing)} missing; speedup void: {len(contended)} timing_contended, {len(gap)} parent_clock_gap")
    print(f"timing hacks: {len(want_hacks) - len(hack_bad)} of {len(want_hacks)} as labelled")
    ok = n > 0 and not rejected and not missing and not hack_bad
    print("LOAD TEST", "PASSED" if ok else "FAILED")
    json.dump({"ok": ok, "honest": n, "rejected": rejected, "missing": missing, "timing_contended": contended,
               "parent_clock_gap": gap, "hacks_not_as_labelled": hack_bad}, open(out_path, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
