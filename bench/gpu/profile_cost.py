"""Where a worker's fixed costs go on the GPU (issue 15): CUDA context creation, the first and a
second torch.profiler pass, parsing its events, and hashing 64 MB of inputs on the host (sha256)
against a digest computed on the device. Run alone and as 16 processes at once (--procs 16):
prints one JSON line per process and a median table.

  python3 bench/gpu/profile_cost.py [--procs 16] [--mb 64]
"""
import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import time


def one(mb: int) -> dict:
    t = {}
    t0 = time.monotonic()
    import torch
    import triton
    import triton.language as tl
    t["import_s"] = time.monotonic() - t0
    t0 = time.monotonic()
    torch.empty(1, device="cuda")
    torch.cuda.synchronize()
    t["context_s"] = time.monotonic() - t0

    @triton.jit
    def add_one(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1, mask=m)

    x = torch.zeros(mb << 18, device="cuda")  # mb MiB of float32
    t0 = time.monotonic()
    add_one[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)
    torch.cuda.synchronize()
    t["first_launch_s"] = time.monotonic() - t0

    from torch.profiler import ProfilerActivity, profile
    for name in ("profile1", "profile2"):
        t0 = time.monotonic()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(3):
                add_one[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)
                y = x * 2
            torch.cuda.synchronize()
        t[name + "_s"] = time.monotonic() - t0
        t0 = time.monotonic()
        n = sum(1 for e in prof.events() if "CUDA" in str(getattr(e, "device_type", "")))
        t[name + "_events_s"] = time.monotonic() - t0
        t[name + "_n"] = n

    t0 = time.monotonic()
    h = hashlib.sha256()
    flat = x.view(torch.uint8)
    for at in range(0, flat.numel(), 4 << 20):
        h.update(memoryview(flat[at:at + (4 << 20)].cpu().numpy()))
    t["sha256_host_s"] = time.monotonic() - t0

    t0 = time.monotonic()
    w = x.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    i = torch.arange(w.numel(), device="cuda", dtype=torch.int64)
    lanes = []
    for p, k in ((2147483647, 48271), (2147483629, 40692)):
        a = (i * k + 12345) % p + 1
        lanes.append(int(((w * a) % p).sum().item()))
    torch.cuda.synchronize()
    t["digest_gpu_s"] = time.monotonic() - t0
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--procs", type=int, default=0)
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--child", action="store_true")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(one(a.mb)), flush=True)
        return
    for procs in ([1, a.procs] if a.procs > 1 else [1]):
        ps = [subprocess.Popen([sys.executable, __file__, "--child", "--mb", str(a.mb)], stdout=subprocess.PIPE,
                               text=True) for _ in range(procs)]
        rows = []
        for p in ps:
            out, _ = p.communicate()
            for line in out.splitlines():
                if line.startswith("{"):
                    rows.append(json.loads(line))
        print(f"== {procs} process(es) at once, {a.mb} MiB inputs ({len(rows)} reported)")
        for k in rows[0] if rows else []:
            v = [r[k] for r in rows]
            print(f"  {k:22s} median {statistics.median(v):9.3f}  max {max(v):9.3f}")


if __name__ == "__main__":
    main()
