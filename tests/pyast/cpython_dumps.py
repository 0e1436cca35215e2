"""Writes CPython's ast.dump for every .py file of the given packages.

Usage: python cpython_dumps.py [--attributes] OUT_FILE PACKAGE...
(packages found through this interpreter's import system, e.g. torch triton
numpy; --attributes dumps positions too: ast.dump(include_attributes=True))

Record format, one per file, read by difftest.cpp:
  FILE <path>\n
  OK <byte length>\n<dump>\n      or     ERR <line> <offset> <message>\n
Sources are read as bytes, so coding declarations apply as for a file.
"""
import ast
import importlib.util
import os
import sys
import warnings


def package_dir(name):
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"package {name} not found")
    return list(spec.submodule_search_locations)[0]


def main():
    args = sys.argv[1:]
    attributes = bool(args) and args[0] == "--attributes"
    if attributes:
        args = args[1:]
    out_path, packages = args[0], args[1:]
    files = []
    for pkg in packages:
        for root, dirs, names in os.walk(package_dir(pkg)):
            dirs.sort()
            files.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".py"))
    warnings.simplefilter("ignore")
    with open(out_path, "wb") as out:
        for path in files:
            with open(path, "rb") as f:
                src = f.read()
            out.write(b"FILE " + path.encode() + b"\n")
            try:
                dump = ast.dump(ast.parse(src), include_attributes=attributes).encode("utf-8", "surrogatepass")
                out.write(b"OK %d\n" % len(dump) + dump + b"\n")
            except (SyntaxError, ValueError) as e:
                line = getattr(e, "lineno", 0) or 0
                offset = getattr(e, "offset", 0) or 0
                msg = str(getattr(e, "msg", e)).replace("\n", " ")
                out.write(b"ERR %d %d " % (line, offset) + msg.encode("utf-8", "replace") + b"\n")
    print(f"{len(files)} files", file=sys.stderr)


if __name__ == "__main__":
    main()
