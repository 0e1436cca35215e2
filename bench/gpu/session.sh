#!/usr/bin/env bash
# One device call of the GPU proofs: runs the named steps one after another, each under its own
# time limit, and packs every step's files into $OUT/<call>.tar.gz (the device returns at most 8
# files) with the summaries concatenated in $OUT/<call>_summary.txt.
#
#   BIN=<packed tritonrl folder> OUT=<out> KB=<folder holding KernelBench/level1..3> \
#     bench/gpu/session.sh CALL STEP[:LIMIT_S]...
#   steps: eval (bench/gpu/eval.sh), runtime (runtime_guards.sh), load (load_test.sh), kbmem (kernelbench_memory.sh),
#          throughput (measure.sh 4), warm (warm_workers.sh), sft (bench/train/sft_bench.sh),
#          serve (bench/serve/throughput.py, grpo_loop.py), trl (bench/serve/trl_grpo.py; carry .whl),
#          latency (bench/serve/latency.py: one-sample requests to a warm service, small tasks),
#          measure12 (measure.sh 1 2),
#          synth (bench/data/synth_gpu.sh, N=$SYNTH_N tasks, default 200; returns synth_state.tar.gz), grpo (bench/train/grpo_gpu.sh),
#          demo (bench/demo/demo_gpu.sh: tritonrl demo --gpu $DEMO_FLAGS, cut 20 s before the step's limit)
#          kbaudit (bench/gpu/tasks_audit.sh on KernelBench levels: KB_AUDIT_LEVELS, KB_ARGS)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
CALL="$1"; shift
: "${BIN:?}" "${OUT:?}"
export BIN
# The python steps (serve, trl) start tritonrl themselves: they need the packed libraries too.
source bench/gpu/libpath.sh
W="$(mktemp -d)"
SUM="$OUT/${CALL}_summary.txt"
: >"$SUM"
t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$SUM"; }
say "host $(hostname) gpu $(nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader | head -1) cpus $(nproc)"
for spec in "$@"; do
  step="${spec%%:*}"; limit="${spec#*:}"; [[ "$limit" == "$spec" ]] && limit=300
  d="$W/$step"; mkdir -p "$d"
  say "step $step (limit ${limit}s)"
  case "$step" in
    eval) cmd=(env OUT="$d" EVAL_JOBS=16 EVAL_TASKS="$W/medium" bench/gpu/eval.sh)
          [[ -d "$W/medium" ]] || python3 bench/gpu/derive_suite.py tasks "$W/medium" --keep medium >/dev/null 2>&1 || cmd=(env OUT="$d" EVAL_JOBS=16 bench/gpu/eval.sh) ;;
    runtime) cmd=(env OUT="$d" bench/gpu/runtime_guards.sh) ;;
    load) cmd=(env OUT="$d" bench/gpu/load_test.sh) ;;
    # A level stopped at its KB_LIMIT_n resumes in the next call on the same warm machine (its
    # store is kept in .kb_memory_state); per-verdict reasons land in level<n>.verdicts.tsv.
    # The state also comes back as $OUT/kbmem_state.tar.gz: unpacked at the repository root and
    # carried (".kb_memory_state") to a fresh machine, it resumes there. Never carry it to the warm
    # machine that holds a newer one: carried paths replace what is there.
    kbmem) cmd=(env OUT="$d" bench/gpu/kernelbench_memory.sh "${KB:?}") ;;
    kbaudit) # The null-model audit of KernelBench levels (tasks_audit.sh), KB_AUDIT_LEVELS
             # (default level2) and KB_ARGS (e.g. "--tasks level1/38_L1Norm_,level1/39_L2Norm_").
             cmd=(env OUT="$d" OURS=0 KB="${KB:?}/KernelBench" KB_LEVELS="${KB_AUDIT_LEVELS:-level2}"
                  bench/gpu/tasks_audit.sh) ;;
    throughput) cmd=(env OUT="$d" bench/gpu/measure.sh 4) ;;
    measure12) cmd=(env OUT="$d" bench/gpu/measure.sh 1 2) ;;
    warm) cmd=(env OUT="$d" LIMIT="${WARM_LIMIT:-24}" bench/gpu/warm_workers.sh) ;;
    sft) cmd=(env OUT="$d" bench/train/sft_bench.sh) ;;
    grpo) cmd=(env OUT="$d" bench/train/grpo_gpu.sh) ;;
    demo) read -r -a demo_flags <<<"${DEMO_FLAGS:-}"
          cmd=(env OUT="$d" DEMO_LIMIT="$((limit - 20))" bench/demo/demo_gpu.sh "${demo_flags[@]}") ;;
    synth) # A fixed folder (not this call's scratch): a 2,000-task draw stopped by the step's limit
           # resumes in the next call on the same warm machine (its verify.db is kept).
           sd="${SYNTH_OUT:-$ROOT/.synth_gpu}"
           cmd=(bash -c "OUT='$sd' N='${SYNTH_N:-200}' JOBS=16 TRITONRL='$BIN/tritonrl' PY=python3 bench/data/synth_gpu.sh;
                rc=\$?; cp '$sd'/synth_gpu.log '$sd'/synth/stats.json '$d'/ 2>/dev/null; exit \$rc") ;;
    latency) cmd=(env OUT="$d" python3 bench/serve/latency.py --device cuda --variants "${LATENCY_VARIANTS:-medium}" --repeats 3) ;;
    serve) cmd=(bash -c "OUT=$d python3 bench/serve/throughput.py --jobs 16 --max-samples ${SERVE_SAMPLES:-120}; OUT=$d python3 bench/serve/grpo_loop.py --steps 3") ;;
    trl) # TRL's GRPOTrainer against /v1/reward (needs .whl carried): a tiny random Qwen3, then the
         # demo's SFT policy on its training tasks when the demo ran earlier in this call.
         demo_out="$W/demo/demo"
         cmd=(bash -c "OUT=$d/random python3 bench/serve/trl_grpo.py --steps 3 --device cuda;
              [[ -f $demo_out/sft/checkpoint/config.json ]] || exit 0
              OUT=$d/sft python3 bench/serve/trl_grpo.py --steps 3 --device cuda --max-new-tokens 1024 \
                --model $demo_out/sft/checkpoint --tasks $demo_out/synth/train/tasks \
                --prompts $demo_out/synth/sft_train.jsonl") ;;
    *) say "unknown step $step"; continue ;;
  esac
  # The synth verdicts are snapshotted into $OUT every 60 s as well: a call killed by the device
  # (its budget ran out before the step's limit) still returns the draw's progress.
  # Stopping the loop lets a snapshot in progress finish (bash runs the trap after it) before the
  # final one below, so an older snapshot never lands after the final one.
  snap=""
  if [[ "$step" == synth ]]; then
    ( trap 'exit 0' TERM
      while true; do
        sleep 60 & wait $!
        bench/gpu/synth_snapshot.sh "$sd" "$OUT/synth_state.tar.gz"
      done ) &
    snap=$!
  fi
  timeout -k 15 "$limit" "${cmd[@]}" >"$d/stdout.txt" 2>&1
  rc=$?
  [[ -n "$snap" ]] && { kill "$snap" 2>/dev/null; wait "$snap" 2>/dev/null; }
  say "step $step rc=$rc"
  [[ "$step" == kbmem ]] && tar -czf "$OUT/kbmem_state.tar.gz" -C "$ROOT" .kb_memory_state 2>/dev/null
  # The synth verdicts come back too (the tasks are regenerated from the seed): unpacked at the
  # repository root and carried (".synth_gpu") on a fresh machine's first call, the draw resumes.
  [[ "$step" == synth ]] && bench/gpu/synth_snapshot.sh "$sd" "$OUT/synth_state.tar.gz"
  for f in "$d"/*summary*.txt "$d"/*table*.txt "$d"/*_check*.txt; do
    [[ -f "$f" ]] && { echo "--- $step/$(basename "$f")"; cat "$f"; } >>"$SUM"
  done
  tail -n 40 "$d/stdout.txt" | sed "s/^/[$step] /" >>"$SUM"
  # A step cut by its limit never wrote its summary: its progress on stderr says how far it got.
  for f in "$d"/*stderr*.txt "$d"/*.log; do
    [[ -f "$f" ]] && tail -n 60 "$f" | sed "s/^/[$step $(basename "$f")] /" >>"$SUM"
  done
  # Weights and checkpoints would push the archive past what the device returns.
  tar -czf "$OUT/${CALL}.tar.gz" -C "$W" --exclude='*.db' --exclude='*.db-wal' --exclude=kbwork --exclude=medium \
    --exclude='*.safetensors' --exclude='*.pt' --exclude='*.bin' --exclude='checkpoint*' . 2>/dev/null
done
say "done"
