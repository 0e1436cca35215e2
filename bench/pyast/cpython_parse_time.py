"""Times CPython's ast.parse on a list of files (one path per line on stdin).

Prints one line: "<files> <bytes> <seconds>" (best of --repeat passes, the
sources read into memory first so only parsing is timed).
"""
import ast
import sys
import time
import warnings


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    paths = [line.strip() for line in sys.stdin if line.strip()]
    sources = []
    for p in paths:
        with open(p, "rb") as f:
            sources.append(f.read())
    warnings.simplefilter("ignore")
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for src in sources:
            ast.parse(src)
        best = min(best, time.perf_counter() - t0)
    print(len(sources), sum(len(s) for s in sources), f"{best:.6f}")


if __name__ == "__main__":
    main()
