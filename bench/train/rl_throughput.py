#!/usr/bin/env python3
"""RL step throughput (issue 35's "Proof" bench): N GRPO steps of `tritonrl train grpo` on-policy
(--off-policy 0) and off-policy (--off-policy 1), and TRL's GRPOTrainer with our `/v1/reward` as its
reward (bench/serve/trl_grpo.py against a real `tritonrl serve`), in the same run on the same
machine, from the same Hugging Face checkpoint, on the same tasks and prompts, with the same group
size, tasks per step, new tokens, learning rate and steps.

What it prints, one row per run (ours on-policy, ours off-policy, TRL), totals over the N steps:
  gen_s, score_s, update_s   the stages' seconds (train grpo's metrics.jsonl gen_seconds,
                             score_seconds, update_seconds; TRL: its `_generate`, the reward
                             function's calls, and update = step wall - generation - reward)
  wall_s                     the steps' wall time (train grpo's elapsed_s at the last step; TRL:
                             start of training to the last step's end): model loading excluded
  overlap_s                  gen + score + update - wall: the stage time hidden by overlap (about 0
                             on-policy and for TRL; under --off-policy 1 the scoring hidden behind
                             the next step's generation)
  wall/pipe                  wall / the one-step pipelined bound gen_1 + sum over steps N of
                             (max(gen_N+1, score_N) + update_N) (gen_N+1 = 0 at the last step): the
                             wall time if step N+1's generation hid entirely behind step N's scoring
                             or the other way round, i.e. max(generation, scoring) + update per step
                             as issue 35 states it (<= 1.10 with --off-policy 1). On-policy and TRL
                             run the stages one after the other, so theirs is above 1 by what
                             overlapping would save.
  rollouts/s                 rollouts generated, scored and learnt per second of wall
  scored/s                   rollouts / score_s: scoring throughput alone (issue 35: >= 20)
  vs TRL                     rollouts/s over TRL's (issue 35: >= 5x)
and writes OUT/rl_throughput.json: the options, the per-step rows of every run, the totals, the
commands and their exit codes. The per-step split is in the JSON and, with --per-step, printed. A
step's wall is the growth of train grpo's elapsed_s; under --off-policy 1 it holds the *next* step's
generation (sampled while this step is scored) and step 1's also its own, so per step the overlap is
counted against the generation inside that wall (gen_in_wall); the totals need no such care.

The model: --model DIR (a Hugging Face checkpoint, e.g. an SFT checkpoint of builtin:small) or
builtin:NAME; a builtin model is first written as a checkpoint by one `train sft` step at learning
rate 0 (OUT/init/checkpoint: the seed's weights unchanged, builtin:small's tokenizer learnt from the
suite's SFT records), so all three runs start from the same weights. The tasks and prompts: the
on-policy run draws them (--levels, --seed); its rollouts.jsonl records each group's task and
prompt (chat template applied), which TRL gets in the same order (--raw-prompts --keep-order).
--time-limit bounds the whole run: each phase gets what is left (a phase cut short is reported as
such and the others still run); nothing is resumed, a rerun starts over.

CPU smoke (dev VM, plumbing only; tests/python/test_rl_throughput_bench.py runs it):
  TRITONRL_BIN=build/tritonrl python3 bench/train/rl_throughput.py --model builtin:tiny --steps 2 \\
      --group 2 --tasks-per-step 2 --max-new-tokens 8 --device cpu --jobs 1 --out /tmp/rlbench
H200 (one GPU, 16 cores), carrying .whl/ (scripts/fetch_trl_wheels.sh: TRL is not installed there,
trl_grpo.py installs the wheels into a temporary folder) and the build (TRITONRL_BIN or BIN/tritonrl);
MODEL an SFT checkpoint of builtin:small (`tritonrl demo --gpu` -> OUT/sft/checkpoint) or builtin:small:
  python3 bench/train/rl_throughput.py --model $MODEL --steps 8 --group 8 --tasks-per-step 4 \\
      --max-new-tokens 512 --device cuda --jobs 16 --time-limit 540 --out $OUT/rl_throughput
Figures go to bench/RESULTS.md with the date and the machine.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TRL_SCRIPT = os.path.join(ROOT, "bench", "serve", "trl_grpo.py")
SFT_DATA = os.path.join(ROOT, "tests", "python", "sft_suite_data.py")


class Phase:
    """A subprocess under what is left of the run's time limit, its output to a log."""

    def __init__(self, deadline, log_dir):
        self.deadline, self.log_dir, self.commands = deadline, log_dir, []

    def run(self, name, cmd, env=None):
        left = self.deadline - time.time()
        entry = {"name": name, "cmd": cmd, "log": os.path.join(self.log_dir, name + ".log")}
        self.commands.append(entry)
        if left <= 1:
            entry.update(rc=None, seconds=0.0, timed_out=True)
            print(f"[{name}] skipped: the time limit is spent", file=sys.stderr)
            return entry
        print(f"[{name}] {' '.join(cmd)}", file=sys.stderr)
        t0 = time.time()
        with open(entry["log"], "w") as log:
            try:
                rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, timeout=left).returncode
                entry.update(rc=rc, timed_out=False)
            except subprocess.TimeoutExpired:
                entry.update(rc=None, timed_out=True)
        entry["seconds"] = round(time.time() - t0, 2)
        if entry["rc"] != 0:
            with open(entry["log"]) as f:
                tail = f.read()[-2000:]
            why = "timed out (--time-limit)" if entry["timed_out"] else f"exit {entry['rc']}"
            print(f"[{name}] {why}; the end of {entry['log']}:\n{tail}", file=sys.stderr)
        return entry


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def totals(steps):
    """Totals over per-step rows {rollouts, gen_seconds, score_seconds, update_seconds, wall_seconds}."""
    g = sum(s["gen_seconds"] for s in steps)
    sc = sum(s["score_seconds"] for s in steps)
    u = sum(s["update_seconds"] for s in steps)
    wall = sum(s["wall_seconds"] for s in steps)
    pipe = sum(s["pipelined_seconds"] for s in steps)
    n = sum(s["rollouts"] for s in steps)
    return {"steps": len(steps), "rollouts": n, "gen_seconds": g, "score_seconds": sc, "update_seconds": u,
            "wall_seconds": wall, "overlap_seconds": g + sc + u - wall, "pipelined_seconds": pipe,
            "wall_over_pipelined": wall / pipe if pipe > 0 else None,
            "rollouts_per_second": n / wall if wall > 0 else None,
            "scored_rollouts_per_second": n / sc if sc > 0 else None}


def add_overlap(rows, pipelined_run):
    """Per step: the generation inside the step's wall (its own; under --off-policy 1 the next
    step's, plus its own at step 1), the overlap against it, and the pipelined bound."""
    for i, r in enumerate(rows):
        nxt = rows[i + 1]["gen_seconds"] if i + 1 < len(rows) else 0.0
        first = r["gen_seconds"] if i == 0 else 0.0
        in_wall = first + nxt if pipelined_run else r["gen_seconds"]
        r["gen_in_wall_seconds"] = in_wall
        r["overlap_seconds"] = in_wall + r["score_seconds"] + r["update_seconds"] - r["wall_seconds"]
        r["pipelined_seconds"] = first + max(nxt, r["score_seconds"]) + r["update_seconds"]
        r["wall_over_pipelined"] = r["wall_seconds"] / r["pipelined_seconds"] if r["pipelined_seconds"] > 0 else None
    return rows


def ours_steps(metrics, group, off_policy):
    """train grpo's metrics.jsonl to per-step rows; a step's wall is the growth of elapsed_s."""
    rows, prev = [], 0.0
    for m in metrics:
        wall = m["elapsed_s"] - prev
        prev = m["elapsed_s"]
        rows.append({"step": m["step"], "rollouts": m["sampled_groups"] * group, "gen_seconds": m["gen_seconds"],
                     "score_seconds": m["score_seconds"], "update_seconds": m["update_seconds"],
                     "wall_seconds": wall, "gen_tokens_per_second": m["gen_tokens_per_second"]})
    return add_overlap(rows, off_policy)


def trl_steps(doc):
    rows = [{"step": t["step"], "rollouts": t["rollouts"], "gen_seconds": t["gen_seconds"],
             "score_seconds": t["reward_seconds"], "update_seconds": t["update_seconds"],
             "wall_seconds": t["wall_seconds"]} for t in doc["step_timings"]]
    return add_overlap(rows, False)


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def table(runs, trl_rps):
    head = (f"{'run':<22}{'steps':>6}{'rollouts':>9}{'gen_s':>9}{'score_s':>9}{'update_s':>9}{'wall_s':>9}"
            f"{'overlap_s':>10}{'wall/pipe':>11}{'rollouts/s':>11}{'scored/s':>10}{'vs TRL':>8}")
    lines = [head]
    for name, r in runs:
        t = r.get("totals")
        if not t:
            lines.append(f"{name:<22}  {r.get('error', 'no result')}")
            continue
        ratio = t["rollouts_per_second"] / trl_rps if trl_rps and t["rollouts_per_second"] else None
        lines.append(f"{name:<22}{t['steps']:>6}{t['rollouts']:>9}{t['gen_seconds']:>9.2f}{t['score_seconds']:>9.2f}"
                     f"{t['update_seconds']:>9.2f}{t['wall_seconds']:>9.2f}{t['overlap_seconds']:>10.2f}"
                     f"{fmt(t['wall_over_pipelined'], '.3f'):>11}{fmt(t['rollouts_per_second'], '.2f'):>11}"
                     f"{fmt(t['scored_rollouts_per_second'], '.2f'):>10}{fmt(ratio, '.2f') + ('x' if ratio else ''):>8}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="builtin:tiny", help="Hugging Face checkpoint DIR or builtin:NAME")
    ap.add_argument("--tasks", default=os.path.join(ROOT, "tasks"), help="suite folder or data synth manifest")
    ap.add_argument("--levels", default="1:1", help="train grpo's --levels (which tasks are drawn)")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--group", type=int, default=8, help="rollouts per task (GRPO group)")
    ap.add_argument("--tasks-per-step", type=int, default=4)
    ap.add_argument("--max-new-tokens", type=int, default=512)
    ap.add_argument("--device", default="cuda", help="cpu or cuda: policy, scoring (our runs and the server)")
    ap.add_argument("--jobs", type=int, default=16, help="scoring workers (train grpo --jobs, serve --jobs)")
    ap.add_argument("--lr", type=float, default=1e-6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bf16", action="store_true",
                    help="bf16 compute for both (train grpo --dtype bf16, TRL bf16 mixed precision); "
                         "default fp32 for both")
    ap.add_argument("--time-limit", type=float, default=3600, help="seconds for the whole run")
    ap.add_argument("--out", required=True, help="output folder (emptied first)")
    ap.add_argument("--bin", default=os.environ.get("TRITONRL_BIN")
                    or os.path.join(os.environ.get("BIN", os.path.join(ROOT, "build")), "tritonrl"),
                    help="the tritonrl binary (default $TRITONRL_BIN, else $BIN/tritonrl, else build/tritonrl)")
    ap.add_argument("--per-step", action="store_true", help="also print every run's per-step split")
    args = ap.parse_args()

    binary = os.path.abspath(args.bin)
    if not os.access(binary, os.X_OK):
        raise SystemExit(f"no tritonrl binary at {binary}: give --bin or TRITONRL_BIN")
    if subprocess.run([binary, "train", "grpo", "--help"], capture_output=True).returncode != 0:
        raise SystemExit(f"{binary} has no `train grpo` (built without libtorch?)")
    if not os.path.exists(args.tasks):
        raise SystemExit(f"no tasks at {args.tasks}")
    for name in ("steps", "group", "tasks_per_step", "max_new_tokens", "jobs"):
        if getattr(args, name) < 1:
            raise SystemExit(f"--{name.replace('_', '-')} must be at least 1")
    if args.group < 2:
        raise SystemExit("--group must be at least 2 (GRPO's advantages need a group)")
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    deadline = time.time() + args.time_limit
    phase = Phase(deadline, out)
    cuda = args.device.startswith("cuda")
    doc = {"options": vars(args), "binary": binary, "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
           "host": os.uname().nodename, "cpus": os.cpu_count(), "runs": {}}
    if cuda:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True)
        doc["gpu"] = smi.stdout.strip() if smi.returncode == 0 else None

    # 1. The starting checkpoint, shared by all three runs.
    model = args.model
    if model.startswith("builtin:"):
        data = os.path.join(out, "sft_records.jsonl")
        subprocess.run([sys.executable, SFT_DATA, "--tasks", args.tasks if os.path.isdir(args.tasks) else
                        os.path.join(ROOT, "tasks"), "--train", data], check=True, capture_output=True)
        e = phase.run("init_checkpoint", [binary, "train", "sft", "--model", model, "--data", data,
                                          "--out", os.path.join(out, "init"), "--steps", "1", "--lr", "0",
                                          "--max-tokens", "4096", "--batch-tokens", "8192",
                                          "--device", args.device, "--no-progress"])
        model = os.path.join(out, "init", "checkpoint")
        if e["rc"] != 0 or not os.path.isfile(os.path.join(model, "config.json")):
            raise SystemExit(f"could not write the starting checkpoint of {args.model}; see {e['log']}")
    elif not os.path.isfile(os.path.join(model, "config.json")):
        raise SystemExit(f"--model {model}: neither builtin:NAME nor a Hugging Face checkpoint (no config.json)")
    model = os.path.abspath(model)
    doc["checkpoint"] = model

    # 2. Ours, on-policy then off-policy.
    runs = []
    for policy in (0, 1):
        name = f"tritonrl off-policy {policy}"
        run_dir = os.path.join(out, f"ours_offpolicy{policy}")
        cmd = [binary, "train", "grpo", "--model", model, "--tasks", args.tasks, "--out", run_dir,
               "--levels", args.levels, "--group", str(args.group), "--tasks-per-step", str(args.tasks_per_step),
               "--max-new-tokens", str(args.max_new_tokens), "--steps", str(args.steps), "--lr", str(args.lr),
               "--seed", str(args.seed), "--device", args.device, "--eval-device", "cuda" if cuda else "cpu",
               "--dtype", "bf16" if args.bf16 else "fp32", "--jobs", str(args.jobs),
               "--off-policy", str(policy), "--no-progress"]
        e = phase.run(f"ours_offpolicy{policy}", cmd)
        r = {"command": e}
        metrics_path = os.path.join(run_dir, "metrics.jsonl")
        metrics = read_jsonl(metrics_path) if os.path.exists(metrics_path) else []
        if metrics:
            r["per_step"] = ours_steps(metrics, args.group, policy == 1)
            r["totals"] = totals(r["per_step"])
        if e["rc"] != 0:
            r["error"] = "timed out" if e["timed_out"] else f"exit {e['rc']} (see {e['log']})"
            if metrics:
                r["error"] += f": {len(metrics)} of {args.steps} steps"
        doc["runs"][name] = r
        runs.append((name, r))

    # 3. TRL on the on-policy run's tasks and prompts, in its order.
    name = "TRL GRPOTrainer"
    prompts = os.path.join(out, "prompts.jsonl")
    rollouts_path = os.path.join(out, "ours_offpolicy0", "rollouts.jsonl")
    r = {}
    if os.path.exists(rollouts_path):
        seen, rows = set(), []
        for ro in read_jsonl(rollouts_path):
            key = (ro["step"], ro.get("round", 1), ro["group"])
            if key not in seen:
                seen.add(key)
                rows.append({"task": ro["task"], "prompt": ro["prompt"]})
        with open(prompts, "w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        trl_out = os.path.join(out, "trl")
        env = dict(os.environ, BIN=os.path.dirname(binary), OUT=trl_out)
        cmd = [sys.executable, TRL_SCRIPT, "--model", model, "--tasks", args.tasks, "--prompts", prompts,
               "--raw-prompts", "--keep-order", "--steps", str(args.steps), "--group", str(args.group),
               "--prompts-per-step", str(args.tasks_per_step), "--max-new-tokens", str(args.max_new_tokens),
               "--device", args.device, "--jobs", str(args.jobs), "--lr", str(args.lr), "--seed", str(args.seed)]
        if args.bf16:
            cmd.append("--bf16")
        e = phase.run("trl", cmd, env=env)
        r["command"] = e
        result = os.path.join(trl_out, "trl_grpo.json")
        if os.path.exists(result):
            trl_doc = json.load(open(result))
            r["trl"] = {k: trl_doc[k] for k in ("trl", "transformers", "trainer", "train_seconds", "server_exit")}
            r["per_step"] = trl_steps(trl_doc)
            if r["per_step"]:
                r["totals"] = totals(r["per_step"])
        if e["rc"] != 0:
            r["error"] = "timed out" if e["timed_out"] else f"exit {e['rc']} (see {e['log']})"
    else:
        r["error"] = "no prompts: the on-policy run wrote no rollouts"
    doc["runs"][name] = r
    runs.append((name, r))

    trl_rps = (r.get("totals") or {}).get("rollouts_per_second")
    for name, run in runs[:2]:
        t = run.get("totals")
        if t and trl_rps and t["rollouts_per_second"]:
            t["rollouts_per_second_over_trl"] = t["rollouts_per_second"] / trl_rps
    doc["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    doc["table"] = table(runs, trl_rps)
    with open(os.path.join(out, "rl_throughput.json"), "w") as f:
        json.dump(doc, f, indent=1)

    print(f"RL step throughput: model {args.model}, {args.steps} steps x {args.tasks_per_step} tasks x group "
          f"{args.group}, {args.max_new_tokens} new tokens, device {args.device}, {args.jobs} jobs"
          + (f", GPU {doc['gpu']}" if doc.get("gpu") else ""))
    print(doc["table"])
    if args.per_step:
        for name, run in runs:
            print(f"== {name}, per step")
            print("step  rollouts   gen_s  score_s  update_s   wall_s  gen_in_wall  overlap_s  wall/pipe")
            for s in run.get("per_step", []):
                print(f"{s['step']:4d} {s['rollouts']:9d} {s['gen_seconds']:7.2f} {s['score_seconds']:8.2f} "
                      f"{s['update_seconds']:9.2f} {s['wall_seconds']:8.2f} {s['gen_in_wall_seconds']:12.2f} "
                      f"{s['overlap_seconds']:10.2f} {fmt(s['wall_over_pipelined'], '.3f'):>10}")
    print(f"json: {os.path.join(out, 'rl_throughput.json')}")
    failed = [name for name, run in runs if "error" in run]
    if failed:
        raise SystemExit("incomplete: " + "; ".join(f"{n}: {doc['runs'][n]['error']}" for n in failed))


if __name__ == "__main__":
    main()
