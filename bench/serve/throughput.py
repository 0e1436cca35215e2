"""The service's samples/s at --jobs N beside `tritonrl eval --jobs N` on the same samples (H200).

Both score the same JSONL (default: every task solution plus the labelled corpus, as
scripts/demo.sh builds it) with the cache off, each into its own fresh store, so neither reuses the
other's verdicts. The service gets the samples as one POST /v1/evaluate per task (how an RL engine
sends its groups), all in flight at once; the clock runs from the first POST to the last verdict.
Also checks that both give every sample the same outcome (timing flags may differ run to run).

  BIN=build OUT=/tmp/out python3 bench/serve/throughput.py [--jobs 16] [--samples FILE]
Writes $OUT/serve_throughput.json and prints one summary line.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Server, bench_dirs  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--samples", help="sample JSONL (default: solutions + corpus)")
    ap.add_argument("--tasks", default=os.path.join(ROOT, "tasks"))
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--variants", default="medium",
                    help="variants the reference prefers, as eval/serve --variants ('' = the device's default)")
    ap.add_argument("--max-samples", type=int, default=0,
                    help="score every n-th sample so that at most this many remain (0 = all)")
    args = ap.parse_args()
    bin_dir, out, tmp = bench_dirs()
    tritonrl = os.path.join(bin_dir, "tritonrl")

    samples_path = args.samples
    if not samples_path:
        samples_path = os.path.join(tmp, "samples.jsonl")
        subprocess.run([tritonrl, "corpus", os.path.join(ROOT, "tests/corpus/hacks"),
                        os.path.join(ROOT, "tests/corpus/legit"), "--solutions",
                        os.path.join(ROOT, "tasks/solutions"), "--out", samples_path], check=True)
    samples = [json.loads(l) for l in open(samples_path) if l.strip()]
    if args.max_samples and len(samples) > args.max_samples:
        stride = -(-len(samples) // args.max_samples)
        samples = samples[::stride]
        samples_path = os.path.join(tmp, "samples_kept.jsonl")
        with open(samples_path, "w") as f:
            f.writelines(json.dumps(s) + "\n" for s in samples)
    variants = ["--variants", args.variants] if args.variants else []

    # 1. tritonrl eval.
    t0 = time.time()
    subprocess.run([tritonrl, "eval", "--tasks", args.tasks, "--samples", samples_path, "--device",
                    args.device, "--jobs", str(args.jobs), *variants, "--no-cache", "--json", "--db",
                    os.path.join(tmp, "eval.db"), "--work-dir", os.path.join(tmp, "eval-work")],
                   stdout=open(os.path.join(out, "eval.json"), "w"),
                   stderr=open(os.path.join(out, "eval.log"), "w"), check=False)
    eval_s = time.time() - t0
    eval_json = json.load(open(os.path.join(out, "eval.json")))
    eval_outcome = {(s["task"], s["sample"]): s["outcome"] for s in eval_json["samples"]}

    # 2. The service, one request per task, all at once.
    server = Server(bin_dir, os.path.join(tmp, "state"),
                    ["--tasks", args.tasks, "--device", args.device, "--jobs", str(args.jobs),
                     *variants, "--no-cache", "--max-eval-batch", "4096", "--work-dir",
                     os.path.join(tmp, "serve-work")],
                    os.path.join(out, "serve.log"))
    by_task = collections.defaultdict(list)
    for s in samples:
        item = {"task": s["task"], "id": str(s.get("sample", len(by_task[s["task"]])))}
        item["code" if "code" in s else "output"] = s.get("code", s.get("output"))
        by_task[s["task"]].append(item)
    t0 = time.time()
    jobs = [server.post("/v1/evaluate", {"samples": items})["job"] for items in by_task.values()]

    def finish(job):
        while True:
            j = server.get("/v1/jobs/%s?wait=120" % job)
            if j["state"] != "running":
                return j

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        finished = list(pool.map(finish, jobs))
    serve_s = time.time() - t0
    metrics = server.get("/metrics")
    server.stop()
    serve_outcome = {}
    for j in finished:
        for r in j["results"]:
            if r:
                serve_outcome[(r["task"], r["sample"])] = r["outcome"]

    differ = sorted("%s/%s: eval %s, serve %s" % (k[0], k[1], eval_outcome.get(k), v)
                    for k, v in serve_outcome.items() if eval_outcome.get(k) != v)
    result = {
        "samples": len(samples), "jobs": args.jobs, "device": args.device,
        "eval_seconds": round(eval_s, 1), "eval_samples_per_s": round(len(samples) / eval_s, 3),
        "serve_seconds": round(serve_s, 1), "serve_samples_per_s": round(len(samples) / serve_s, 3),
        "serve_requests": len(jobs), "serve_verdicts": len(serve_outcome),
        "outcomes_differ": differ[:50], "outcomes_differ_count": len(differ),
        "serve_metrics_tail": [l for l in metrics.splitlines() if l.startswith("tritonrl_serve_samples")],
    }
    json.dump(result, open(os.path.join(out, "serve_throughput.json"), "w"), indent=1)
    print("serve throughput: %d samples, --jobs %d: eval %.3f samples/s, serve %.3f samples/s "
          "(%d requests), %d outcomes differ" % (len(samples), args.jobs, result["eval_samples_per_s"],
                                                  result["serve_samples_per_s"], len(jobs), len(differ)))


if __name__ == "__main__":
    main()
