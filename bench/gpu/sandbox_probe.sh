#!/usr/bin/env bash
# Which sandbox feature stops CUDA on this machine? Evaluates one honest kernel
# (legit/relu_basic) on cuda with every feature on, then with single features
# switched off through TRITONRL_SANDBOX_OFF (diagnostics only), and prints the
# outcome, the sandbox level reached and the first reason for each.
#   BIN=<folder with tritonrl> OUT=<folder> bench/gpu/sandbox_probe.sh
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
: "${BIN:?}" "${OUT:?}"
export TRITONRL_RUNNER_DIR="$ROOT/python" TRITONRL_PYTHON="${TRITONRL_PYTHON:-$(command -v python3)}"
TMP="$(mktemp -d)"
"$BIN/tritonrl" corpus tests/corpus/legit --out "$TMP/legit.jsonl" 2>/dev/null
grep '"legit/relu_basic"' "$TMP/legit.jsonl" >"$TMP/smoke.jsonl"
for off in "" pidns netns seccomp rlimits "pidns,seccomp" "pidns,netns,seccomp,rlimits"; do
  TRITONRL_SANDBOX_OFF="$off" "$BIN/tritonrl" eval --device cuda --tasks tasks --samples "$TMP/smoke.jsonl" \
    --json --no-cache --keep-work >"$TMP/r.json" 2>>"$OUT/sandbox_probe.log"
  "$TRITONRL_PYTHON" - "$TMP/r.json" "${off:-none}" <<'PY' | tee -a "$OUT/sandbox_probe.txt"
import json, sys
try:
    s = json.load(open(sys.argv[1]))["samples"][0]
    msg = (s.get("reasons") or [{}])[0].get("message", "")
    print(f"off={sys.argv[2]:<28} outcome={s['outcome']:<14} sandbox={json.dumps(s.get('sandbox'))}")
    if msg:
        print("   reason:", msg[-1500:].replace("\n", "\n   "))
except Exception as e:  # keep probing the other settings
    print(f"off={sys.argv[2]}: no verdict ({e})")
PY
done
