#!/usr/bin/env bash
# E2's comparisons (docs/demo.md, "E2"): each pair of GRPO modes, paired by block and task, over
# every work folder given. A block is one seed of one work folder (a lease: its own SFT, pool and
# runs), so the folders of several leases combine into one comparison; `tritonrl paired`
# bootstraps over blocks, then tasks within each block. Then, for each endpoint, the three pairs'
# p-values adjusted together (Holm).
#
#   BIN=build/tritonrl [MODES="hrd uniform binary"] [SETS=pool] [OUT_DIR=<folder>] \
#     bench/train/modes_paired.sh W [W...]
#
# Reads W/eval/MODE_sSEED_SET.jsonl (learning.sh's evaluations of each run); a seed counts as a
# block where both modes of a pair have it. Writes OUT_DIR/modes_A_vs_B_SET.json (default OUT_DIR:
# the first W's eval folder) and prints the tables; exits 2 when a pair has no block.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${BIN:-$ROOT/build/tritonrl}"
MODES="${MODES:-hrd uniform binary}" SETS="${SETS:-pool}"
ENDPOINTS="${ENDPOINTS:-pass@1 mean_speedup fast plan_concentration}"
(($# >= 1)) || { echo "usage: modes_paired.sh W [W...]" >&2; exit 2; }
OUT_DIR="${OUT_DIR:-$1/eval}"
mkdir -p "$OUT_DIR"
read -r -a modes <<<"$MODES"

for set in $SETS; do
  family=()
  for ((i = 0; i < ${#modes[@]}; ++i)); do
    for ((j = i + 1; j < ${#modes[@]}; ++j)); do
      a="${modes[i]}" b="${modes[j]}" args=() blocks=0
      for w in "$@"; do
        for fa in "$w"/eval/"${a}"_s*_"$set".jsonl; do
          [[ -f "$fa" ]] || continue
          seed="${fa#"$w/eval/${a}_s"}" && seed="${seed%"_$set.jsonl"}"
          [[ "$seed" =~ ^[0-9]+$ ]] || continue  # a control (_control) or an lr arm (_lrX)
          fb="$w/eval/${b}_s${seed}_$set.jsonl"
          [[ -f "$fb" ]] || continue
          args+=(--before "$fa" --after "$fb")
          blocks=$((blocks + 1))
        done
      done
      if ((blocks == 0)); then
        echo "modes_paired.sh: no block has both $a and $b on $set" >&2
        exit 2
      fi
      out="$OUT_DIR/modes_${a}_vs_${b}_$set.json"
      echo "== $b against $a on $set ($blocks blocks: after = $b, before = $a)"
      "$BIN" paired "${args[@]}" --json "$out"
      family+=("$out")
    done
  done
  for metric in $ENDPOINTS; do
    "$BIN" paired --holm "${family[@]}" --holm-metric "$metric"
  done
done
