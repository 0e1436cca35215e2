#!/usr/bin/env bash
# Null-model audit on the GPU (docs/tasks.md, "Null-model audit"): our suite on every
# variant, and optionally a KernelBench checkout's level folders at their default shapes
# (too large for the CPU audit). Needs $BIN/tritonrl (built on the CPU machine) and python3
# with torch; no Triton compilation. bench/gpu/libpath.sh sets LD_LIBRARY_PATH. Writes $OUT/audit_<name>.txt (streamed table) and
# $OUT/audit_<name>.err (runner stderr tail); prints a summary per suite.
#   BIN=... OUT=/tmp/out bench/gpu/tasks_audit.sh                   # tasks/, all variants
#   BIN=... OUT=/tmp/out KB=/path/to/KernelBench bench/gpu/tasks_audit.sh
# KB must point at the folder that holds level1/ and level2/ (never commit its files).
# TIMEOUT (seconds per task, default 300) bounds one task; a task over it is reported as
# a timeout and the audit continues. AUDIT_JOBS (default 8) runners work in parallel.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$ROOT/out/tasks_audit}"
BIN="${BIN:-$ROOT/build}"
source "$ROOT/bench/gpu/libpath.sh"
TIMEOUT="${TIMEOUT:-300}"
JOBS="${AUDIT_JOBS:-8}"  # runner processes in parallel (tritonrl tasks audit --jobs)
mkdir -p "$OUT"
unset TRITON_INTERPRET

audit() {  # name dir [extra args]
  local name="$1" dir="$2"
  shift 2
  echo "== $name ($dir)"
  "$BIN/tritonrl" tasks audit "$dir" --device cuda --python python3 --runner "$ROOT/python" \
    --timeout "$TIMEOUT" --jobs "$JOBS" "$@" >"$OUT/audit_$name.txt" 2>"$OUT/audit_$name.err"
  local rc=$?
  tail -n 1 "$OUT/audit_$name.txt"
  echo "status counts:"
  awk 'NR > 1 && NF >= 3 && $3 ~ /^(ok|weak|fail|error|timeout|skipped)$/ {n[$3]++}
       END {for (s in n) printf "  %-8s %d\n", s, n[s]}' "$OUT/audit_$name.txt"
  grep -E '^[^ ]+ +[^ ]+ +(fail|weak) ' "$OUT/audit_$name.txt" || true
  return $rc
}

rc=0
# OURS_ARGS: extra arguments for our suite, to split the audit over calls (about 9 s per task and
# variant on the H200 before inputs were generated on the device), e.g. "--variants large" or
# "--tasks level1/1_ReLU,level1/3_Softmax"; OURS=0 skips our suite (KernelBench only).
read -r -a OURS_EXTRA <<<"${OURS_ARGS:-}"
if [[ "${OURS:-1}" != 0 ]]; then
  audit ours "$ROOT/tasks" "${OURS_EXTRA[@]}" || rc=1
fi
# KB_ARGS: extra arguments for the KernelBench levels (e.g. "--tasks level1/1_Square_matrix...").
read -r -a KB_EXTRA <<<"${KB_ARGS:-}"
if [[ -n "${KB:-}" ]]; then
  for level in ${KB_LEVELS:-level1 level2}; do
    mkdir -p "$OUT/kb_$level" && ln -sfn "$KB/$level" "$OUT/kb_$level/$level"
    audit "kernelbench_$level" "$OUT/kb_$level" "${KB_EXTRA[@]}" || true  # findings, not ours
    rm -rf "$OUT/kb_$level"
  done
fi
exit $rc
