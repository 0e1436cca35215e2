"""Drives python/tritonrl_runner/worker.py over its pipes, as the C++ engine does,
for the Python tests of the worker and its timing stage."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from tritonrl_runner.protocol import read_frame, write_frame  # noqa: E402


def drive_worker(tmp_path, request, answer=None, wait_s=120, args=(), before_request=None):
    """Sends `request` to a fresh worker and returns (frames, stderr text).

    `answer(header)` may return a frame to send back (e.g. the engine's "go" once it
    holds the timing lease); without it the request pipe is closed at once. `args` follow
    "IN_FD OUT_FD" on the worker's command line (a pre-started worker's "--prestart cpu");
    `before_request()` runs after the start and before the request is written."""
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "TRITON_INTERPRET": "1", "OMP_NUM_THREADS": "1",
           "HOME": str(tmp_path), "TRITON_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-I", "-B", str(ROOT / "python" / "tritonrl_runner" / "worker.py"),
                             str(r_in), str(w_out), *args], pass_fds=(r_in, w_out), env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(r_in)
    os.close(w_out)
    if before_request is not None:
        before_request()
    write_frame(w_in, request)
    if answer is None:
        os.close(w_in)
    frames = []
    while True:
        try:
            h, p = read_frame(r_out)
        except EOFError:
            break
        frames.append((h, p))
        if answer is not None:
            reply = answer(h)
            if reply is not None:
                write_frame(w_in, reply)
    if answer is not None:
        os.close(w_in)
    os.close(r_out)
    err = proc.stderr.read().decode()
    proc.wait(timeout=wait_s)
    return frames, err
