"""Lists what the installed Triton re-exports, for the static verifier's name tables (src/verify).

Every module below `triton` that is loaded after the imports a candidate (and the CPU interpreter)
triggers is scanned for attributes that are modules defined elsewhere (`triton.runtime.jit.threading`
is Python's `threading`): these are the re-exports a candidate could reach through a `triton.*` name.
It also prints the globals the CPU interpreter copies into every kernel's module (bare names such as
`np` that a kernel body can use without importing them). Run with the project's Python:

    .venv/bin/python src/verify/tools/list_reexports.py
"""
import inspect
import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")
import triton  # noqa: E402
import triton.language  # noqa: E402,F401
import triton.runtime.interpreter as interpreter  # noqa: E402


def _module_name(value):
    return value.__name__ if inspect.ismodule(value) else None


def reexports():
    out = {}
    for name, mod in sorted(sys.modules.items()):
        if mod is None or not (name == "triton" or name.startswith("triton.")):
            continue
        for attr, value in sorted(vars(mod).items()):
            real = _module_name(value)
            if real is not None and real != f"{name}.{attr}":
                out[f"{name}.{attr}"] = real
    return out


def interpreter_globals():
    out = {}
    for key, value in sorted(vars(interpreter).items()):
        if key.startswith("__"):
            continue
        real = _module_name(value)
        if real is None:
            mod = getattr(value, "__module__", None)
            qual = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
            real = f"{mod}.{qual}" if isinstance(mod, str) and isinstance(qual, str) else "?"
        out[key] = real
    return out


if __name__ == "__main__":
    print(f"# triton {triton.__version__}")
    rex = reexports()
    roots = sorted({r.split(".")[0] for r in rex.values()})
    print(f"## {len(rex)} re-exported modules below triton; their top-level packages:")
    print(" ".join(roots))
    for path, real in rex.items():
        if not real.startswith("triton"):
            print(f"{path} -> {real}")
    print("## names the interpreter copies into a kernel's module globals")
    for key, real in interpreter_globals().items():
        print(f"{key} -> {real}")
