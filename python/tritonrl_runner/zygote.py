"""Warm workers: an interpreter that imported torch and triton once and forks one worker per request.

Started by the C++ engine (src/eval/process.cpp, SpawnWorker) as
``python -I -B zygote.py SOCK_FD SANDBOX_LIB`` with the workers' environment, outside any sandbox
(it never runs task or candidate code: it imports the runner's own modules and forks). SOCK_FD is a
SOCK_SEQPACKET socket to the engine; SANDBOX_LIB is the shared library with the sandbox steps that a
cold worker applies between fork and exec (src/eval/sandbox_child.h), the very file the engine is
linked with.

Messages:
  to the engine   b"hello" first of all (the engine gives a program that never says it, not a
                  working interpreter, seconds, then starts workers cold); b"ready" once the
                  imports are done; per spawn b"P<pid>" (the relay: the process
                  group leader the engine kills) or b"F<why>".
  from the engine b"S" + u32 (little-endian) header length + JSON {"env": [...], "args": [...]}
                  + the SandboxPlan bytes (args: the worker's arguments after "3 4", e.g.
                  ["--prestart", "cuda"] for a pre-started worker, src/eval/worker_pool.h),
                  with five fds: request read end, result write end, report write end, log,
                  /dev/null. b"R<pid>": the engine is done with that worker's group; reap it.
                  EOF: the engine is gone; exit (the relays and workers die with us, PDEATHSIG).

Per request, in the forked child, before anything else runs:
  tritonrl_sandbox_begin  setsid, PR_SET_PDEATHSIG, fds 0-5 only (this socket and every other
                          descriptor of the zygote closed), rlimits, network namespace,
                          unshare(CLONE_NEWPID);
  fork                    the child stays outside as the relay (waits, reports the wait status on
                          fd 5); the grandchild is the worker (PID 1 of its namespace when it was
                          made). A relay is made even without a PID namespace: the engine cannot
                          wait for a process that is not its child, so the status must come on fd 5;
  tritonrl_sandbox_finish private mounts (read-only tree, tmpfs scratch, /dev/shm, /proc), no
                          capabilities, no-new-privs, the seccomp program, chdir; the report; fd 5
                          closed;
  then the environment is replaced by the request's (sanitized by the engine), and the worker's
  main runs as in a cold worker (python -I -B worker.py 3 4 [args]).

The zygote holds no CUDA context (CUDA does not survive fork; each worker initialises its own) and
never sees a seed, a candidate's code or any output: those travel on the worker's own pipes.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    os.write(int(sys.argv[1]), b"hello")  # before any import that could be slow or broken

import ctypes  # noqa: E402
import json  # noqa: E402
import socket  # noqa: E402
import warnings  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_BIT_PIDNS = 4
_N_FDS = 5


def _prebuilt_cuda_utils():
    """Triton's ``cuda_utils`` extension, compiled here once, as (cache key, file name, bytes).

    A worker whose private cache lacks it runs a C compiler on its first launch (about a second,
    more with 16 workers compiling at once). The zygote runs no task or candidate code, so these
    bytes are trusted; each GPU worker gets its own copy in its own cache before the candidate is
    imported (what a candidate does to its copy stays in its sandbox). None on a machine without
    the CUDA driver, or if Triton's private build helpers changed: workers then compile it as before.
    """
    try:
        import hashlib
        import sysconfig
        import tempfile
        from pathlib import Path

        from triton.backends.nvidia import driver as nv
        from triton.runtime import build

        src = Path(nv.dirname, "driver.c").read_text()
        key = hashlib.sha256((src + build.platform_key()).encode("utf-8")).hexdigest()
        name = "cuda_utils" + sysconfig.get_config_var("EXT_SUFFIX")
        with tempfile.TemporaryDirectory() as tmp:
            src_path = os.path.join(tmp, "cuda_utils.c")
            Path(src_path).write_text(src)
            so = build._build("cuda_utils", src_path, tmp, nv.library_dirs(), nv.include_dirs, nv.libraries, [])
            return key, name, Path(so).read_bytes()
    except Exception:  # noqa: BLE001 (no CUDA driver here, or another Triton: nothing prebuilt)
        return None


def _install_prebuilt(prebuilt) -> None:
    """Puts the zygote's prebuilt file into this worker's own Triton cache (TRITON_CACHE_DIR, set
    per worker), through Triton's cache manager: the key and layout its loader looks up."""
    if not prebuilt:
        return
    key, name, data = prebuilt
    try:
        from triton.runtime.cache import get_cache_manager

        get_cache_manager(key).put(data, name, binary=True)
    except Exception:  # noqa: BLE001 (the worker compiles it itself)
        pass


_PREBUILT = None  # set in main() on a machine with the CUDA driver


def _child(lib, plan: bytes, fds: list[int], env: list[str], args: list[str]) -> None:
    """The forked child: sandbox, relay, then the worker. Never returns."""
    rc = 126
    try:
        buf = ctypes.create_string_buffer(plan, len(plan))
        bits = lib.tritonrl_sandbox_begin(buf, *fds)
        if bits < 0:
            os._exit(126)
        # From here on only fds 0-5 are open.
        worker = os.fork()
        if worker > 0:
            lib.tritonrl_sandbox_relay(worker)  # does not return
            os._exit(125)
        bits = lib.tritonrl_sandbox_finish(buf, bits, 1)
        if bits < 0:
            os._exit(126)
        del buf, plan
        os.environ.clear()
        for kv in env:
            key, _, value = kv.partition("=")
            os.environ[key] = value
        import tempfile

        tempfile.tempdir = None  # TMPDIR is the worker's own now
        _install_prebuilt(_PREBUILT)
        from tritonrl_runner import worker as worker_module

        argv = [worker_module.__file__, "3", "4", *args]
        sys.argv = argv
        try:
            rc = worker_module.main(argv)
        except BaseException:  # as an uncaught exception in a cold worker: traceback, exit 1
            import traceback

            traceback.print_exc()
            rc = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
    except BaseException:
        pass
    # As a cold worker: leave without running anything the candidate may have registered.
    os._exit(rc)


def main(argv: list[str]) -> int:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=int(argv[1]))
    lib = ctypes.CDLL(argv[2])
    lib.tritonrl_sandbox_begin.argtypes = [ctypes.c_void_p] + [ctypes.c_int] * _N_FDS
    lib.tritonrl_sandbox_finish.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    lib.tritonrl_sandbox_relay.argtypes = [ctypes.c_int]
    # Python warns on fork() while native threads (a BLAS pool) exist; those pools reinitialise in
    # the child (pthread_atfork), and nothing of ours runs in another thread.
    warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork.*")

    # What a worker spends its start-up on (docs/eval.md): nothing here runs task code.
    import torch
    import triton
    import triton.language  # noqa: F401

    from tritonrl_runner import hooks, protocol, taskmod, timing, worker  # noqa: F401

    global _PREBUILT
    _PREBUILT = _prebuilt_cuda_utils()

    if torch.cuda.is_initialized():
        print("zygote: a CUDA context exists before fork; refusing to serve", file=sys.stderr)
        return 1
    del triton
    sock.send(b"ready")
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 20, _N_FDS)
        except InterruptedError:
            continue
        if not msg:
            return 0
        kind = msg[:1]
        if kind == b"R":
            try:
                os.waitpid(int(msg[1:]), 0)
            except (ValueError, ChildProcessError):
                pass
            for fd in fds:
                os.close(fd)
            continue
        env = plan = args = header = None
        try:
            if kind != b"S" or len(fds) != _N_FDS or len(msg) < 5:
                raise ValueError("malformed spawn request")
            length = int.from_bytes(msg[1:5], "little")
            header = json.loads(msg[5:5 + length])
            env = header["env"]
            args = header.get("args", [])
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise ValueError("malformed worker arguments")
            plan = msg[5 + length:]
            pid = os.fork()
            if pid == 0:
                sock.close()
                _child(lib, plan, fds, env, args)
            reply = b"P%d" % pid
        except Exception as e:  # the engine falls back to a cold spawn
            reply = b"F" + str(e).encode()[:200]
        for fd in fds:
            os.close(fd)
        del msg, env, plan, args, header
        sock.send(reply)


if __name__ == "__main__":
    rc = main(sys.argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)
