#!/usr/bin/env bash
# Memory of `tritonrl eval` at KernelBench scale (issue 15, point 1), for the H200 machine.
#
#   BIN=<folder holding tritonrl> OUT=<output folder> bench/gpu/kernelbench_memory.sh KB_ROOT
#
# KB_ROOT holds the KernelBench checkout's task folders: KB_ROOT/KernelBench/level1/*.py, level2,
# level3 (default sizes, untouched). Every sampled task is evaluated with its own reference as the
# candidate (the task file plus `class ModelNew(Model): pass`) and --no-static, so that it reaches
# the runtime, where it must be rejected (forbidden_aten_op in its first trial's header). Since
# evaluator version 15 a candidate stops at its first failure, so the reference's outputs are
# spilled as ever but the candidate's are not read; KB_EVAL_ARGS=--all-trials runs every trial
# through the engine's comparison (the load before version 15). --jobs 16, one run per level, each under
# /usr/bin/time -v, while tritonrl's own VmHWM (its peak RSS; time -v's figure is the largest of
# the process and its descendants, the workers included) and the host's MemAvailable are sampled
# every second and nvidia-smi every 5 s (the GPU's peak memory use).
#
# Time: about 8 minutes of device time for the three levels. A level is sampled when it has more
# tasks than KB_PER_LEVEL_<n> (defaults 40, 24, 12): every k-th file in name order, always including
# the largest-output families of level 1 (19-32 elementwise at 4096 x 393216, 38/39 norms at
# 32768 x 65535, 7 matmul at 32768^2). KB_PER_LEVEL_n=all evaluates every task of level n.
# KB_LEVELS (default "1 2 3") picks the levels, so that one device call can take a whole level.
# Each level also has a wall-clock cap (KB_LIMIT_<n> seconds, defaults 200, 140, 140): a level
# still running then is stopped with SIGINT and the verdicts stored so far are counted from its
# store (--db), so the script itself stays inside the budget.
#
# A level stopped at its cap resumes where it stopped when the script runs again on the same
# machine (a later device call on the warm machine): each level's sample file and store (--db) live
# in KB_STATE (default $ROOT/.kb_memory_state, kept), and the same `tritonrl eval` command on the
# same store resumes the run, skipping the verdicts it holds. KB_FRESH=1 starts over.
#
# Writes under $OUT: summary.txt (the table for bench/RESULTS.md), level<n>.json (tritonrl's
# --json, when the run finished), level<n>.verdicts.tsv (task, outcome, first reason and its
# message, one line per verdict stored so far, from --jsonl, which survives the cap),
# level<n>.verdicts.jsonl (the verdicts themselves, with their timings_ms),
# level<n>.time.txt, level<n>.meminfo.txt, level<n>.gpu.txt, level<n>.disk.txt (free GB of the
# spill folder's file system every second), run.log.
# What it proves: the run completes with no OOM (exit status, dmesg not needed: tritonrl's peak RSS
# is printed), tritonrl's peak RSS stays a few hundred MB whatever the outputs' size (it held
# 55-103 GB before the sliced comparison), and a sample that cannot fit the host or device memory
# budget is reported resource_exhausted instead of ending the run.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
KB="${1:?usage: kernelbench_memory.sh KB_ROOT (holding KernelBench/level1 ...)}"
BIN="${BIN:?set BIN to the folder holding tritonrl}"
source "$ROOT/bench/gpu/libpath.sh"
OUT="${OUT:?set OUT to the output folder}"
mkdir -p "$OUT"
export TRITONRL_RUNNER_DIR="$ROOT/python"
export TRITONRL_PYTHON="${TRITONRL_PYTHON:-$(command -v python3)}"
JOBS="${KB_JOBS:-16}"  # KB_DEVICE=cpu (default cuda) runs it on the CPU: a check of the script
# The reference outputs are spilled to memory (the engine's memory tier, a third of MemAvailable by
# default; KB_SPILL_MEMORY_MB overrides it, 0: disk only) and then to the work folder: on the
# machine's disk, not a tmpfs.
WORK="${KB_WORK:-$ROOT/.kb_memory_work}"
STATE="${KB_STATE:-$ROOT/.kb_memory_state}"
[[ "${KB_FRESH:-0}" == 1 ]] && rm -rf "$STATE"
mkdir -p "$STATE"
LOG="$OUT/run.log"
TMP="$STATE"
trap 'rm -rf "$WORK"' EXIT
: >"$LOG"
note() { echo "$*" | tee -a "$LOG"; }
note "kernelbench_memory.sh: $(date -u +%FT%TZ) host $(hostname), jobs $JOBS"
note "gpu: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)"
note "host: $(free -g | awk '/Mem:/ {print $2 " GB total, " $7 " GB available"}'), disk free at $WORK: $(mkdir -p "$WORK" && df -h --output=avail "$WORK" | tail -1)"

summary="$OUT/summary.txt"
printf '%-7s %6s %5s %7s %5s %16s %17s %17s %16s %16s %s\n' level tasks exit wall_s calls tritonrl_hwm_mb time_v_tree_max_mb host_min_avail_gb gpu_peak_used_mb disk_min_free_gb outcomes >"$summary"

for level in ${KB_LEVELS:-1 2 3}; do
  dir="$KB/KernelBench/level$level"
  if [[ ! -d "$dir" ]]; then
    note "level$level: $dir missing, skipped"
    continue
  fi
  per_var="KB_PER_LEVEL_$level"
  limit_var="KB_LIMIT_$level"
  defaults=(0 40 24 12)
  limits=(0 200 140 140)
  per="${!per_var:-${defaults[$level]}}"
  limit="${!limit_var:-${limits[$level]}}"
  "$TRITONRL_PYTHON" - "$dir" "$level" "$per" >"$TMP/level$level.samples.new" 2>>"$LOG" <<'PY'
import json, os, re, sys
folder, level, per = sys.argv[1], sys.argv[2], sys.argv[3]
files = sorted((f for f in os.listdir(folder) if f.endswith(".py")),
               key=lambda f: int(re.match(r"\d+", f).group()) if re.match(r"\d+", f) else 10**9)
if per != "all" and len(files) > int(per):
    n = int(per)
    # The largest outputs of level 1 always (the cases that OOM-killed the old engine).
    big = {7, 19, 23, 38, 39} if level == "1" else set()
    keep = [f for f in files if re.match(r"\d+", f) and int(re.match(r"\d+", f).group()) in big]
    rest = [f for f in files if f not in keep]
    step = max(1, len(rest) // max(1, n - len(keep)))
    keep += rest[::step][: max(0, n - len(keep))]
    files = sorted(keep, key=files.index)
for f in files:
    src = open(os.path.join(folder, f)).read()
    code = src + "\n\nclass ModelNew(Model):\n    pass\n"
    print(json.dumps({"task": f"level{level}/{f[:-3]}", "sample": "reference_as_candidate", "code": code}))
PY
  # The same samples as a stopped run (byte for byte) resume it; other ones start a new run.
  if cmp -s "$TMP/level$level.samples.new" "$TMP/level$level.jsonl"; then
    resumed=$(grep -c . "$TMP/level$level.verdicts.jsonl" 2>/dev/null || echo 0)
  else
    mv "$TMP/level$level.samples.new" "$TMP/level$level.jsonl"
    rm -f "$TMP/level$level.db"* "$TMP/level$level.verdicts.jsonl" "$TMP/level$level.calls"
    resumed=0
  fi
  rm -f "$TMP/level$level.samples.new"
  n=$(wc -l <"$TMP/level$level.jsonl")
  note "level$level: $n tasks (KB_PER_LEVEL_$level=$per), cap ${limit}s, $resumed verdicts stored by earlier calls"
  # While it runs: the host's MemAvailable every second, tritonrl's own VmHWM (its peak RSS;
  # /usr/bin/time -v reports the largest of its descendants too, i.e. a worker), and every 5 s the
  # GPU's memory use.
  (while :; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1; sleep 5; done) \
    >"$OUT/level$level.gpu.txt" &
  gpu_pid=$!
  (while :; do df -B1G --output=avail "$WORK" 2>/dev/null | tail -1 | tr -d ' '; sleep 1; done) \
    >"$OUT/level$level.disk.txt" &
  disk_pid=$!
  t0=$(date +%s)
  timeout -s INT "$limit" /usr/bin/time -v -o "$OUT/level$level.time.txt" \
    "$BIN/tritonrl" eval --device "${KB_DEVICE:-cuda}" --run-id "kbmem-level$level" --tasks "$KB/KernelBench" --samples "$TMP/level$level.jsonl" \
    --jobs "$JOBS" --no-static --no-cache --json --db "$TMP/level$level.db" --work-dir "$WORK/level$level" \
    --jsonl "$TMP/level$level.verdicts.jsonl" --spill-memory-mb "${KB_SPILL_MEMORY_MB:--1}" ${KB_EVAL_ARGS:-} \
    >"$TMP/level$level.json" 2>>"$LOG" &
  run_pid=$!
  hwm_kb=0
  : >"$OUT/level$level.meminfo.txt"
  while kill -0 "$run_pid" 2>/dev/null; do
    awk '/MemAvailable/ {print $2}' /proc/meminfo >>"$OUT/level$level.meminfo.txt"
    time_pid=$(pgrep -P "$run_pid" | head -1)
    eval_pid=${time_pid:+$(pgrep -P "$time_pid" | head -1)}
    v=${eval_pid:+$(awk '/^VmHWM:/ {print $2}' "/proc/$eval_pid/status" 2>/dev/null)}
    [[ -n "${v:-}" ]] && hwm_kb=$v
    sleep 1
  done
  wait "$run_pid"
  rc=$?
  t1=$(date +%s)
  kill "$gpu_pid" "$disk_pid" 2>/dev/null
  wait "$gpu_pid" "$disk_pid" 2>/dev/null
  echo "$((t1 - t0))" >>"$TMP/level$level.calls"
  wall_total=$(awk '{s += $1} END {print s}' "$TMP/level$level.calls")
  calls=$(wc -l <"$TMP/level$level.calls")
  disk_min=$(sort -n "$OUT/level$level.disk.txt" | head -1)
  [[ -s "$TMP/level$level.json" ]] && cp "$TMP/level$level.json" "$OUT/level$level.json"
  cp "$TMP/level$level.verdicts.jsonl" "$OUT/" 2>/dev/null
  tree_kb=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$OUT/level$level.time.txt" 2>/dev/null)
  min_avail_kb=$(sort -n "$OUT/level$level.meminfo.txt" | head -1)
  gpu_peak=$(sort -n "$OUT/level$level.gpu.txt" | tail -1)
  # From --jsonl (every verdict of the run, the resumed ones first when it resumed): written per
  # verdict, so it also counts a run stopped at its cap.
  outcomes=$("$TRITONRL_PYTHON" - "$TMP/level$level.verdicts.jsonl" "$n" "$OUT/level$level.verdicts.tsv" <<'PY' 2>>"$LOG"
import collections, json, sys
path, total, tsv = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = []
try:
    for line in open(path):
        if line.strip():
            rows.append(json.loads(line))
except (OSError, ValueError):
    pass
with open(tsv, "w") as f:
    for r in rows:
        reason = (r.get("reasons") or [{}])[0]
        msg = " ".join(str(reason.get("message", "")).split())[:300]
        t = r.get("timings_ms") or {}
        times = " ".join(f"{k}={t[k] / 1000:.1f}s" for k in
                         ("reference", "reference_wait", "reference_space_wait", "admission_wait",
                          "correctness", "total") if isinstance(t.get(k), (int, float)))
        f.write(f"{r['task']}\t{r['outcome']}\t{reason.get('code', '')}\t{msg}\t{times}\n")
c = collections.Counter(r["outcome"] for r in rows)
codes = collections.Counter((r.get("reasons") or [{}])[0].get("code", "")
                            for r in rows)
state = "" if len(rows) >= total else f"STOPPED AT CAP ({len(rows)} of {total}); "
print(state + " ".join(f"{k}={v}" for k, v in sorted(c.items())), "| first reasons:",
      " ".join(f"{k}={v}" for k, v in codes.most_common(6)))
PY
)
  # wall_s: all calls of this level's run together (calls: how many device calls it took).
  printf '%-7s %6s %5s %7s %5s %16s %17s %17s %16s %16s %s\n' "level$level" "$n" "$rc" "$wall_total" "$calls" \
    "$((hwm_kb / 1024))" "$((${tree_kb:-0} / 1024))" "$(( ${min_avail_kb:-0} / 1024 / 1024 ))" "${gpu_peak:-?}" \
    "${disk_min:-?}" "$outcomes" >>"$summary"
  # resource_exhausted and failure messages, for the next session to read.
  grep -v $'\tincorrect\t' "$OUT/level$level.verdicts.tsv" 2>/dev/null | head -40 | sed "s/^/  /" >>"$summary"
  rm -rf "$WORK/level$level"
done
note ""
cat "$summary" | tee -a "$LOG"
