#!/usr/bin/env bash
# A consistent copy of a synth draw's verdicts (verify.db through SQLite's backup API, audit.jsonl)
# packed as DEST (a .tar.gz whose paths start at basename(SD)). Unpacked at the repository root
# and carried (".synth_gpu") on every call, a draw resumes whether or not the machine is warm.
#   bench/gpu/synth_snapshot.sh SD DEST
set -uo pipefail
SD="$1"; DEST="$2"
V="$SD/synth/.verify"
[[ -f "$V/verify.db" ]] || exit 0
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
name="$(basename "$SD")"
mkdir -p "$T/$name/synth/.verify"
python3 - "$V/verify.db" "$T/$name/synth/.verify/verify.db" <<'PY' || exit 0
import sqlite3, sys
src, dst = sqlite3.connect(sys.argv[1], timeout=30), sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.execute("pragma journal_mode=DELETE")
dst.close()
PY
[[ -f "$V/audit.jsonl" ]] && cp "$V/audit.jsonl" "$T/$name/synth/.verify/"
tar -czf "$DEST.tmp" -C "$T" "$name" && mv -f "$DEST.tmp" "$DEST"
