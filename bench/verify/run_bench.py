"""Static verifier throughput: the C++ verifier (verify_bench) against the same rules in Python over
the `ast` module (pyverify.py), in one run, on the legit + hack corpora replicated to N samples.

    python bench/verify/run_bench.py [--bench BUILD/bench/verify/verify_bench] [--samples 100000]
                                     [--python-samples 10000] [--jobs J]

The C++ side verifies all N samples. The Python baseline is ~1000x slower, so by default it verifies
the first --python-samples of the same replicated list (the same per-file mix, as the corpus order is
cycled) and reports its rate; pass --python-samples equal to --samples for the full run.
"""
import argparse
import json
import multiprocessing
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import pyverify  # noqa: E402

_ALLOW = None


def _corpus():
    files = []
    for kind in ("legit", "hacks"):
        files += [p.read_text() for p in sorted((ROOT / "tests" / "corpus" / kind).glob("*.py"))]
    return files


def _init():
    global _ALLOW
    _ALLOW = pyverify.load_allowlist()


def _verify_chunk(args):
    files, start, stop = args
    valid = 0
    for i in range(start, stop):
        valid += pyverify.verify_code(files[i % len(files)], _ALLOW)["valid"]
    return valid


def python_rate(files, n, jobs):
    start = time.perf_counter()
    if jobs == 1:
        _init()
        valid = _verify_chunk((files, 0, n))
    else:
        step = max(1, n // (jobs * 8))
        chunks = [(files, s, min(n, s + step)) for s in range(0, n, step)]
        with multiprocessing.Pool(jobs, initializer=_init) as pool:
            valid = sum(pool.map(_verify_chunk, chunks))
    seconds = time.perf_counter() - start
    return {"threads": jobs, "samples": n, "seconds": seconds, "samples_per_s": n / seconds,
            "valid": valid}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=str(ROOT / "build" / "bench" / "verify" / "verify_bench"))
    ap.add_argument("--samples", type=int, default=100000)
    ap.add_argument("--python-samples", type=int, default=10000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    args = ap.parse_args()

    files = _corpus()
    cpp = json.loads(subprocess.run([args.bench, "--samples", str(args.samples), "--jobs", str(args.jobs),
                                     "--json"], check=True, capture_output=True, text=True).stdout)
    py1 = python_rate(files, args.python_samples, 1)
    pyn = python_rate(files, args.python_samples, args.jobs)
    code_rows = {r["threads"]: r for r in cpp["rows"] if r["input"] == "code"}
    out_rows = {r["threads"]: r for r in cpp["rows"] if r["input"] == "output"}
    c1, cn = code_rows[1], code_rows[args.jobs]

    print(f"static verifier throughput: {len(files)} corpus files (legit + hacks), "
          f"{os.cpu_count()} cores, C++ on {args.samples} samples, Python on {args.python_samples}")
    print(f"{'implementation':<34} {'threads':>7} {'samples':>9} {'seconds':>9} {'samples/s':>12}")
    rows = [("C++ tritonrl verify (bare code)", c1), ("C++ tritonrl verify (bare code)", cn),
            ("C++ tritonrl verify (model output)", out_rows[1]),
            ("C++ tritonrl verify (model output)", out_rows[args.jobs]),
            ("Python ast, same rules", py1), ("Python ast, same rules", pyn)]
    for name, r in rows:
        print(f"{name:<34} {r['threads']:>7} {r['samples']:>9} {r['seconds']:>9.2f} "
              f"{r['samples_per_s']:>12.0f}")
    print(f"speedup per core (1 thread): {c1['samples_per_s'] / py1['samples_per_s']:.1f}x   "
          f"all cores: {cn['samples_per_s'] / pyn['samples_per_s']:.1f}x   (goal: >= 20x per core)")
    # Both implementations must agree on the corpus (same valid count per replicated sample).
    expect_valid_py = sum(pyverify.verify_code(files[i % len(files)], pyverify.load_allowlist())["valid"]
                          for i in range(min(len(files), args.python_samples)))
    print(f"valid samples: C++ {c1['valid']}/{c1['samples']}, Python {py1['valid']}/{py1['samples']} "
          f"(first corpus pass: {expect_valid_py}/{min(len(files), args.python_samples)})")


if __name__ == "__main__":
    main()
