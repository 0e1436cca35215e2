#!/usr/bin/env bash
# Clang's thread-safety analysis (-Wthread-safety, as an error) over every translation unit of
# src/ that uses base/mutex.h's annotated Mutex: a field marked GUARDED_BY(mu) touched without
# mu held, or a REQUIRES(mu) function called without it, fails the check naming file and line.
# Syntax-only with the build's own flags (build/compile_commands.json), so it costs a parse, not
# a second build. Run by scripts/test.sh after the build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TRITONRL_BUILD_DIR:-$ROOT/build}"
CLANG="${CLANGXX:-clang++}"
command -v "$CLANG" >/dev/null || { echo "check_thread_safety: $CLANG not found" >&2; exit 1; }
[[ -f "$BUILD/compile_commands.json" ]] || { echo "check_thread_safety: no $BUILD/compile_commands.json (build first)" >&2; exit 1; }
mapfile -t files < <(grep -rl --include='*.cpp' --include='*.h' 'base/mutex.h' "$ROOT/src" | sort)
exec "$ROOT/.venv/bin/python" - "$BUILD/compile_commands.json" "$CLANG" "$ROOT" "${files[@]}" <<'PY'
import json, os, shlex, subprocess, sys
db, clang, root, users = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
entries = {}
for e in json.load(open(db)):
    entries.setdefault(os.path.realpath(e["file"]), e)
# The units to check: each .cpp that uses the header, and the .cpp beside each header that does.
units = set()
for f in users:
    f = os.path.realpath(f)
    if f.endswith(".cpp"):
        units.add(f)
    else:
        twin = f[:-2] + ".cpp"
        if os.path.exists(twin):
            units.add(twin)
        # every unit including the header (by its src-relative path) is checked too
        rel = os.path.relpath(f, os.path.join(root, "src"))
        for u in entries:
            if u.startswith(os.path.join(root, "src")) and u.endswith(".cpp"):
                try:
                    if f'#include "{rel}"' in open(u).read():
                        units.add(u)
                except OSError:
                    pass
failed = 0
for u in sorted(units):
    e = entries.get(u)
    if e is None:
        print(f"check_thread_safety: {u} is not in the build (skipped)")
        continue
    args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
    keep, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD") or a == e["file"] or a.startswith("-W") or a.startswith("-O") or a == "-g":
            continue
        keep.append(a)
    cmd = [clang, "-fsyntax-only", "-Wthread-safety", "-Werror=thread-safety", "-Wno-unknown-warning-option",
           *keep, e["file"]]
    r = subprocess.run(cmd, cwd=e["directory"], capture_output=True, text=True)
    bad = [l for l in r.stderr.splitlines() if "thread-safety" in l or "error:" in l]
    if r.returncode != 0:
        failed += 1
        print("\n".join(bad[:40]) or r.stderr[-2000:])
print(f"check_thread_safety: {len(units)} units, {failed} failed")
sys.exit(1 if failed else 0)
PY
