"""The cost of auditing every timed call (issue 34), on the CPU path: the timing stage of the real
candidate worker, driven over its pipes as the engine drives it (the CPU fallback clock: Triton's
interpreter, the host clock), for honest candidates of the corpus and the task solutions, with the
current runner (every call audited; the audit's own time inside each call is reported as
`audit_ms`, and stays in the call's time) against a runner with no audited timed call (an earlier
tree's, e.g. `git archive` of the commit before the change; its engine answers carry no "audit"
flag, so none of its timed calls is audited).

    python bench/audit/timed_call_overhead.py --baseline-runner /tmp/old/python [--calls 20] [--rounds 3]

Per candidate, medians over the timed calls (ms): the unaudited call, the audited call, and the
audit's own time as the worker measured it (its dispatch callbacks, launch steps and call-monitor
callbacks; not the C side of the dispatch mode, nor Triton's interpreter steps run under it).
Host-clock numbers of the CPU interpreter: what they say about a GPU is in docs/measurement.md."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from tritonrl_runner.protocol import read_frame, write_frame  # noqa: E402

# (task, candidate): honest files of several shapes (one launch; a tiled matmul; several kernels;
# an fp32 kernel with a dtype conversion; a kernel on a storage torch wrote in the call).
CANDIDATES = [
    ("level1/1_ReLU", "tests/corpus/legit/relu_basic.py"),
    ("level1/5_Matmul", "tests/corpus/legit/matmul_tiled.py"),
    ("level1/33_Transpose2d", "tasks/solutions/level1/33_Transpose2d.py"),
    ("level1/19_LayerNorm", "tasks/solutions/level1/19_LayerNorm.py"),
    ("level2/11_Conv2dReLUScale", "tasks/solutions/level2/11_Conv2dReLUScale.py"),
    ("level1/10_SiLU", "tests/corpus/legit/silu_fp32_kernel_then_to_bf16.py"),
    ("level1/4_RowSum", "tests/corpus/legit/rowsum_atomic_split.py"),
]


def drive(runner: Path, task: Path, cand: Path, calls: int, tmp: Path) -> dict:
    """One candidate worker through one correctness trial and a timing stage of `calls` calls;
    returns its timing frame's header."""
    allow = ROOT / "src" / "verify" / "allowlist.json"
    req = {"role": "candidate", "task_path": str(task), "candidate_path": str(cand), "device": "cpu",
           "init_seed": 7, "trials": [{"seed": 1, "train": False, "grad": False}], "allowlist_path": str(allow),
           "perturb": 0, "timing": {"variant": "", "input_seed": 99, "warmup": 3, "sample_count": 16,
                                     "profile_calls": 0, "baseline": "eager"}}
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "TRITON_INTERPRET": "1", "OMP_NUM_THREADS": "1",
           "HOME": str(tmp), "TRITON_CACHE_DIR": str(tmp / "cache")}
    proc = subprocess.Popen([sys.executable, "-I", "-B", str(runner / "tritonrl_runner" / "worker.py"), str(r_in),
                             str(w_out)], pass_fds=(r_in, w_out), env=env, cwd=tmp, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    os.close(r_in)
    os.close(w_out)
    write_frame(w_in, req)
    timing = None
    while True:
        try:
            h, _ = read_frame(r_out)
        except EOFError:
            break
        kind = h.get("type")
        if kind == "stage" and h.get("stage") == "timing_ready":
            write_frame(w_in, {"type": "go", "plan": {"warmup_seeds": [11, 12, 13], "calls": calls}})
        elif kind == "call":
            i = h["index"]
            write_frame(w_in, {"type": "call", "index": i, "seed": 1000 + i if i < calls else None,
                               "recheck_prev": False})
        elif kind == "timing":
            timing = h
        elif kind == "error":
            raise RuntimeError(f"{cand}: {h.get('message', '')[-600:]}")
    os.close(w_in)
    os.close(r_out)
    proc.stderr.read()
    proc.wait(timeout=60)
    if timing is None:
        raise RuntimeError(f"{cand}: no timing frame")
    return timing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline-runner", required=True, type=Path,
                    help="a runner folder (holding tritonrl_runner/) that audits no timed call")
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3, help="alternating runs of each runner per candidate")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        for task, cand in CANDIDATES:
            base_ms: list[float] = []
            audited_ms: list[float] = []
            audit_ms: list[float] = []
            for _ in range(a.rounds):
                old = drive(a.baseline_runner, ROOT / "tasks" / f"{task}.py", ROOT / cand, a.calls, tmp)
                new = drive(ROOT / "python", ROOT / "tasks" / f"{task}.py", ROOT / cand, a.calls, tmp)
                assert old.get("audited_calls", 0) == 0, old.get("audited_calls")
                assert new["audited_calls"] == a.calls and not new["audited_forbidden_ops"], new
                base_ms += old["event_ms"]
                audited_ms += new["event_ms"]
                audit_ms += new["audit_ms"]
            med = statistics.median
            row = {"task": task, "candidate": cand, "calls": len(base_ms),
                   "unaudited_ms": round(med(base_ms), 4), "audited_ms": round(med(audited_ms), 4),
                   "audit_ms": round(med(audit_ms), 4)}
            row["overhead_ms"] = round(row["audited_ms"] - row["unaudited_ms"], 4)
            row["overhead_pct"] = round(100 * row["overhead_ms"] / row["unaudited_ms"], 1)
            rows.append(row)
            print(f"{task:28} unaudited {row['unaudited_ms']:9.3f} ms  audited {row['audited_ms']:9.3f} ms "
                  f"(+{row['overhead_ms']:.3f} ms, {row['overhead_pct']:+}%)  measured audit {row['audit_ms']:7.3f} ms",
                  flush=True)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
