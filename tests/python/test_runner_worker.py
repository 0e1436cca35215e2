"""The evaluation worker (python/tritonrl_runner/worker.py) driven over its pipes,
without the C++ engine: frame format, the reference/candidate frame sequence,
and the runtime evidence (launch records, ATen audit, hook integrity, input
hashes) it reports for honest and dishonest candidates."""
import os
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from tritonrl_runner.protocol import read_frame, write_frame  # noqa: E402
from worker_driver import drive_worker  # noqa: E402

TASK = '''
import torch
import torch.nn as nn
rows = 4
cols = 48
VARIANTS = {"small": {"rows": 3, "cols": 40}, "medium": {"rows": 4, "cols": 48}}
class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)
def get_inputs():
    return [torch.randn(rows, cols)]
def get_init_inputs():
    return []
'''

KERNEL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)

def relu(x):
    y = torch.empty_like(x)
    relu_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
    return y
'''

HONEST = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        return relu(x)
'''

DECOY = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        relu(x[:1])
        return torch.relu(x)
'''

TAMPER = KERNEL + '''
import triton.runtime.interpreter as interp
_installed = interp.InterpretedFunction.run  # already the recorder's wrapper

class ModelNew(nn.Module):
    def forward(self, x):
        # Swap in a function of its own (a real attack would skip the recording).
        interp.InterpretedFunction.run = lambda self, *a, **k: _installed(self, *a, **k)
        return relu(x)
'''

MUTATE = KERNEL + '''
class ModelNew(nn.Module):
    def forward(self, x):
        y = relu(x)
        x.zero_()
        return y
'''

ALIAS = '''
import torch.nn as nn
class ModelNew(nn.Module):
    def forward(self, x):
        return x
'''

TRIALS = [{"seed": 1, "train": True, "grad": True}, {"seed": 2, "train": False, "grad": False}]


def run_worker(tmp_path, role, candidate=None, device="cpu", task_text=TASK, **drive):
    task = tmp_path / "task.py"
    task.write_text(task_text)
    allow = tmp_path / "allow.json"
    allow.write_text((ROOT / "src" / "verify" / "allowlist.json").read_text())
    req = {"role": role, "task_path": str(task), "device": device, "init_seed": 7, "trials": TRIALS,
           "allowlist_path": str(allow), "perturb": 1}
    if candidate is not None:
        path = tmp_path / "candidate.py"
        path.write_text(candidate)
        req["candidate_path"] = str(path)
    frames, _ = drive_worker(tmp_path, req, **drive)
    return frames


def trials(frames):
    return [h for h, _ in frames if h["type"] == "trial"]


def trial_outputs(frames):
    """(trial header, [bytes of each tensor output]) per trial, from the slice frames after it."""
    out = []
    for h, p in frames:
        if h["type"] == "trial":
            out.append((h, [b"" for _ in h["outputs"]]))
        elif h["type"] == "slice":
            blobs = out[-1][1]
            assert h["offset"] == len(blobs[h["output"]])  # in order, no gap
            blobs[h["output"]] += p
    return out


def test_slices_cover_the_tensor_and_small_inputs_hash_whole(monkeypatch):
    # Outputs go slice by slice: the bytes must be the whole tensor's (row-major, also for a
    # non-contiguous view), whatever the slice size. A small input's digest covers every byte.
    import hashlib

    import torch
    from tritonrl_runner import worker

    monkeypatch.setattr(worker, "SLICE_BYTES", 64)
    t = torch.arange(3 * 50, dtype=torch.float32).reshape(3, 50).t()  # a transposed view
    parts = [bytes(p) for p in worker._byte_slices(t)]
    assert [len(p) for p in parts] == [64] * 9 + [24]
    whole = t.contiguous().numpy().tobytes()
    assert b"".join(parts) == whole
    h = hashlib.sha256()
    h.update(f"T{t.dtype}{tuple(t.shape)}".encode())
    h.update(whole)
    h.update(b"S" + b"int" + b"3")
    assert worker._digest_inputs([t, 3]) == h.hexdigest()


def test_large_input_digest_reads_edges_and_fixed_positions():
    # Above 192 KiB the digest reads each tensor's first and last 64 KiB and 64 KiB at positions
    # fixed by its size: the same in both workers, and every edge or sampled byte counts.
    import torch
    from tritonrl_runner import worker

    x = torch.randn(300, 400)  # 480,000 bytes
    d = worker._digest_inputs([x])
    assert worker._digest_inputs([x.clone()]) == d
    assert worker._digest_inputs([x.t().contiguous().t()]) == d  # a strided copy, same values
    for at in (0, x.numel() - 1):
        y = x.clone()
        y.view(-1)[at] += 1
        assert worker._digest_inputs([y]) != d, at
    idx = worker._pick_cache[(x.numel() * 4, "cpu")]
    y = x.clone()
    y.view(-1).view(torch.uint8)[int(idx[7])] ^= 0x10
    assert worker._digest_inputs([y]) != d
    assert worker._digest_inputs([x.reshape(400, 300)]) != d  # the shape counts


def test_inputs_unchanged_is_byte_exact():
    import torch
    from tritonrl_runner import worker

    x = torch.tensor([1.0, float("nan"), 3.0])
    copies = worker._copy_inputs([x, 5])
    assert worker._inputs_unchanged([x, 5], copies)  # NaN bits equal: unchanged
    x[0] = 1.0000001
    assert not worker._inputs_unchanged([x, 5], copies)
    z = torch.zeros(4)
    cz = worker._copy_inputs([z])
    z[2] = -0.0  # equal to 0.0 as a number, not as bytes
    assert torch.equal(z, cz[0]) and not worker._inputs_unchanged([z], cz)
    w = torch.zeros(4)
    cw = worker._copy_inputs([w])
    w.resize_(2)
    assert not worker._inputs_unchanged([w], cw)


def test_compile_reports_go_to_the_engine_and_let_triton_compile():
    # On the GPU a candidate's worker reports each Triton compile (the engine's idle deadline
    # waits for it); the cache hook must return falsy, or Triton would skip the compile.
    import triton.knobs as knobs
    from tritonrl_runner import worker

    r, w = os.pipe()
    saved = knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook
    try:
        wk = worker.Worker(w, {"role": "candidate"})
        wk._report_compiles()
        kwargs = {"key": "k", "repr": "kernel[...]", "fn": None, "compile": {}, "is_manual_warmup": False,
                  "already_compiled": False}
        assert not knobs.runtime.jit_cache_hook(**kwargs)
        knobs.runtime.jit_post_compile_hook(**kwargs)
        assert [read_frame(r)[0] for _ in range(2)] == [{"type": "progress", "what": "compile_start"},
                                                        {"type": "progress", "what": "compile_end"}]
    finally:
        knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook = saved
        os.close(r)
        os.close(w)


def test_prebuilt_cuda_utils_lands_where_triton_looks_for_it(tmp_path, monkeypatch):
    # The zygote compiles Triton's cuda_utils once and writes a copy into each GPU worker's own
    # cache; Triton's loader must then find it there and run no compiler. The C compiler and the
    # module loader are replaced (no CUDA driver here); the key and the cache layout are Triton's.
    from pathlib import Path

    from triton.backends.nvidia import driver as nv
    from triton.runtime import build
    from tritonrl_runner import zygote

    def fake_build(name, src_path, tmp, *args):
        so = Path(tmp, name + ".so")
        so.write_bytes(b"compiled " + Path(src_path).read_bytes()[:16])
        return str(so)

    monkeypatch.setattr(build, "_build", fake_build)
    monkeypatch.setattr(nv, "library_dirs", lambda: [])
    prebuilt = zygote._prebuilt_cuda_utils()
    assert prebuilt is not None and prebuilt[2].startswith(b"compiled ")

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "worker-cache"))
    zygote._install_prebuilt(prebuilt)
    monkeypatch.setattr(build, "_build", lambda *a: pytest.fail("compiled again"))
    monkeypatch.setattr(build, "_load_module_from_path", lambda name, path: path)
    found = build.compile_module_from_src(src=Path(nv.dirname, "driver.c").read_text(), name="cuda_utils",
                                          library_dirs=[], include_dirs=nv.include_dirs, libraries=nv.libraries)
    assert Path(found).read_bytes() == prebuilt[2]
    assert found.startswith(str(tmp_path / "worker-cache"))


def test_frames_round_trip():
    r, w = os.pipe()
    write_frame(w, {"type": "trial", "n": 1}, b"\x00\x01\x02")
    header, payload = read_frame(r)
    assert header == {"type": "trial", "n": 1} and payload == b"\x00\x01\x02"
    os.write(w, b"PASS" + bytes(12))
    with pytest.raises(ValueError):
        read_frame(r)
    os.close(r)
    os.close(w)


def test_spinning_read_waits_for_a_late_frame_and_restores_blocking():
    r, w = os.pipe()
    head = b'{"type":"call","index":3}'
    frame = b"TRL1" + len(head).to_bytes(4, "little") + (2).to_bytes(8, "little") + head + b"ok"

    def late_writer():  # the frame arrives in pieces, after the reader started spinning
        for i in range(0, len(frame), 7):
            time.sleep(0.01)
            os.write(w, frame[i : i + 7])

    t = threading.Thread(target=late_writer)
    t.start()
    header, payload = read_frame(r, spin=True)
    t.join()
    assert header == {"type": "call", "index": 3} and payload == b"ok"
    assert os.get_blocking(r)
    os.close(w)
    with pytest.raises(EOFError):  # a closed pipe ends the spin
        read_frame(r, spin=True)
    assert os.get_blocking(r)
    os.close(r)


def frame_types(frames) -> list:
    """The frames' types, less the launch progress frames (sent by time, so their number varies)."""
    return [h["type"] for h, _ in frames if not (h["type"] == "progress" and h.get("what") == "launches")]


def test_reference_sequence_and_inputs(tmp_path):
    frames = run_worker(tmp_path, "reference")
    types = [h["type"] for h, _ in frames]
    assert types == ["hello", "variants", "stage", "trial", "slice", "trial", "slice", "done"]
    assert frames[1][0]["variants"] == ["small"]  # the CPU picks the small variant
    (t0, out0), (t1, _) = trial_outputs(frames)
    assert t0["outputs"][0]["shape"] == [3, 40] and t0["outputs"][0]["dtype"] == "float32"
    assert t0["outputs"][0]["nbytes"] == len(out0[0]) == 3 * 40 * 4
    assert t0["input_sha256"] != t1["input_sha256"]  # fresh inputs per trial


def test_honest_candidate_matches_reference_bytes(tmp_path):
    ref = run_worker(tmp_path, "reference")
    cand = run_worker(tmp_path, "candidate", HONEST)
    assert frame_types(cand) == ["hello", "variants", "stage", "stage", "trial", "slice", "trial", "slice", "done"]
    # Launch progress: at the first launch, then at most once a second (its timing varies, so
    # frame_types leaves these frames out).
    progress = [h for h, _ in cand if h["type"] == "progress"]
    assert progress and progress[0] == {"type": "progress", "what": "launches", "launches": 1}, progress
    for (rh, rp), (ch, cp) in zip(trial_outputs(ref), trial_outputs(cand)):
        assert ch["input_sha256"] == rh["input_sha256"] == ch["input_sha256_after"]
        assert cp == rp  # ReLU is exact
        assert ch["launches"] == [["relu_kernel", True, 1]]
        assert ch["forbidden_ops"] == [] and ch["hooks_intact"] and not ch["global_state_changed"]


def test_decoy_kernel_with_torch_work_is_seen(tmp_path):
    for t in trials(run_worker(tmp_path, "candidate", DECOY)):
        assert ["relu_kernel", True, 1] in t["launches"]
        assert "aten::relu" in t["forbidden_ops"]


def test_uninstalling_the_launch_hook_is_detected(tmp_path):
    ts = trials(run_worker(tmp_path, "candidate", TAMPER))
    assert ts and not any(t["hooks_intact"] for t in ts)


def test_input_mutation_and_aliasing_are_reported(tmp_path):
    for t in trials(run_worker(tmp_path, "candidate", MUTATE)):
        assert t["input_sha256_after"] != t["input_sha256"]
    for t in trials(run_worker(tmp_path, "candidate", ALIAS)):
        assert t["outputs"][0]["alias"] is True
        assert t["launches"] == []


def test_variant_trials_limit_the_large_variant(tmp_path):
    # The engine names the trials a variant runs (GB-sized large variants on the GPU).
    task = tmp_path / "task.py"
    task.write_text(TASK.replace('"medium": {"rows": 4, "cols": 48}', '"large": {"rows": 2, "cols": 8}'))
    allow = tmp_path / "allow.json"
    allow.write_text((ROOT / "src" / "verify" / "allowlist.json").read_text())
    three = TRIALS + [{"seed": 3, "train": True, "grad": False}]
    req = {"role": "reference", "task_path": str(task), "device": "cpu", "init_seed": 7, "trials": three,
           "allowlist_path": str(allow), "perturb": 1, "variants": ["small", "large"],
           "variant_trials": {"large": [0, 2]}}
    frames, err = drive_worker(tmp_path, req)
    ran = [(h["variant"], h["index"], h["seed"]) for h, _ in frames if h["type"] == "trial"]
    assert ran == [("small", 0, 1), ("small", 1, 2), ("small", 2, 3), ("large", 0, 1), ("large", 2, 3)], err
    assert frames[-1][0]["type"] == "done"


def test_candidate_gets_each_seed_just_before_its_trial(tmp_path):
    # No seed is in the candidate's request; the engine answers each build/trial frame with the
    # next seed, and a seed for the wrong trial is refused.
    task = tmp_path / "task.py"
    task.write_text(TASK)
    allow = tmp_path / "allow.json"
    allow.write_text((ROOT / "src" / "verify" / "allowlist.json").read_text())
    cand = tmp_path / "candidate.py"
    cand.write_text(HONEST)
    seeds = [101, 202]
    req = {"role": "candidate", "task_path": str(task), "device": "cpu", "init_seed": 7,
           "trials": [{"train": t["train"], "grad": t["grad"]} for t in TRIALS],
           "allowlist_path": str(allow), "perturb": 1, "candidate_path": str(cand)}
    sent = []

    def answer(h, wrong=False):
        if (h["type"] == "stage" and h.get("stage") == "build") or (h["type"] == "trial" and len(sent) < 2):
            i = len(sent)
            sent.append(i)
            return {"type": "seed", "variant": "small", "index": i + (1 if wrong else 0), "seed": seeds[i]}
        return None

    frames, err = drive_worker(tmp_path, req, answer=answer)
    assert "seed" not in str(req["trials"])
    assert [(h["index"], h["seed"]) for h in trials(frames)] == [(0, 101), (1, 202)], err
    assert frames[-1][0]["type"] == "done"
    sent.clear()
    frames, _ = drive_worker(tmp_path, req, answer=lambda h: answer(h, wrong=True))
    assert frames[-1][0]["type"] == "error" and "expected the seed of small trial 0" in frames[-1][0]["message"]


@pytest.mark.parametrize("prefer,expected", [
    (["medium"], ["medium"]),                   # of those the task has
    (["large", "medium", "small"], ["small", "medium"]),  # in the task's order; large is absent
    (["huge"], ["small"]),                       # none present: the device's default (cpu: small)
])
def test_the_reference_runs_the_preferred_variants_the_task_has(tmp_path, prefer, expected):
    task = tmp_path / "task.py"
    task.write_text(TASK)
    req = {"role": "reference", "task_path": str(task), "device": "cpu", "init_seed": 7,
           "trials": TRIALS, "prefer_variants": prefer}
    frames, _ = drive_worker(tmp_path, req)
    names = [h["variants"] for h, _ in frames if h["type"] == "variants"]
    assert names == [expected]
    assert [h["variant"] for h, _ in frames if h["type"] == "trial"] == [v for v in expected for _ in TRIALS]


def test_a_prestarted_worker_runs_its_request_as_a_fresh_one(tmp_path):
    """worker.py --prestart cpu: imports before the request, then the same frames and bytes; the
    candidate file may appear after the worker started (the engine writes it into the folder of a
    worker it started ahead)."""
    plain_ref = run_worker(tmp_path, "reference")
    plain = run_worker(tmp_path, "candidate", HONEST)
    (tmp_path / "candidate.py").unlink()

    def late_candidate():
        time.sleep(1.0)  # the worker is past its imports, blocked on its request
        (tmp_path / "candidate.py").write_text(HONEST)

    pre_ref = run_worker(tmp_path, "reference", args=["--prestart", "cpu"])
    pre = run_worker(tmp_path, "candidate", HONEST, args=["--prestart", "cpu"], before_request=late_candidate)
    assert frame_types(pre) == frame_types(plain)
    assert frame_types(pre_ref) == frame_types(plain_ref)
    assert pre[0][0]["prestart_ms"] > 0 and "prestart_ms" not in plain[0][0]
    assert [p for _, p in trial_outputs(pre)] == [p for _, p in trial_outputs(plain)]
    assert [p for _, p in trial_outputs(pre_ref)] == [p for _, p in trial_outputs(plain_ref)]


def test_a_worker_prestarted_for_another_device_refuses_the_request(tmp_path):
    frames = run_worker(tmp_path, "reference", device="cuda", args=["--prestart", "cpu"])
    assert [h["type"] for h, _ in frames] == ["error"]
    assert "pre-started for cpu, asked to run on cuda" in frames[0][0]["message"]


def test_a_failed_prestart_is_reported_after_the_request_as_without_it(tmp_path):
    """No GPU here: the CUDA context of --prestart cuda fails; the worker still takes its request
    and fails the way a worker started with it does (an error frame naming the failure)."""
    pre = run_worker(tmp_path, "reference", device="cuda", args=["--prestart", "cuda"])
    plain = run_worker(tmp_path, "reference", device="cuda")
    assert [h["type"] for h, _ in pre] == [h["type"] for h, _ in plain]
    assert pre[-1][0]["type"] == "error" and pre[-1][0]["exc_type"] == plain[-1][0]["exc_type"]
    assert "prestart_ms" not in pre[0][0]


@pytest.mark.parametrize("args", [["--prestart"], ["--prestart", "tpu"], ["--other", "cpu"]])
def test_bad_worker_arguments_fail_before_any_frame(tmp_path, args):
    frames = run_worker(tmp_path, "reference", args=args)
    assert frames == []


def test_a_kernel_triton_refuses_before_compiling_is_marked_a_compile_error():
    # On the GPU, Triton's JIT refuses a kernel that calls a plain Python function while it hashes
    # the kernel's dependencies (a RuntimeError, not CompilationError; the interpreter raises
    # InterpreterError instead); the worker marks it so the engine reports compile_error there too.
    from triton.runtime.jit import JITFunction
    from tritonrl_runner.worker import _refused_by_triton_front_end

    def helper(v):
        return v

    def kernel(x):
        helper(x)

    globals()["helper"] = helper  # the scan looks the name up in the kernel's globals
    try:
        with pytest.raises(RuntimeError, match="Unsupported function referenced") as caught:
            JITFunction(kernel).cache_key
    finally:
        del globals()["helper"]
    assert _refused_by_triton_front_end(caught.value)
    try:
        raise RuntimeError("Unsupported function referenced: raised by the candidate itself")
    except RuntimeError as e:
        assert not _refused_by_triton_front_end(e)
