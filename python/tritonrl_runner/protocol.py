"""Frames exchanged with the C++ engine over a pipe.

A frame is ``b"TRL1"``, a little-endian u32 header length, a little-endian u64
payload length, the UTF-8 JSON header, then the raw payload bytes (tensor data).
The engine treats any malformed, oversized or unexpected frame as a failure of
the sample, so nothing here needs to be trusted by the engine.
"""

from __future__ import annotations

import json
import os
import struct

MAGIC = b"TRL1"
_PREFIX = struct.Struct("<4sIQ")
MAX_HEADER = 1 << 20


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def write_frame(fd: int, header: dict, payload: bytes | memoryview = b"") -> None:
    head = json.dumps(header, separators=(",", ":")).encode()
    _write_all(fd, _PREFIX.pack(MAGIC, len(head), len(payload)) + head)
    if len(payload):
        _write_all(fd, payload)


def _read_exact(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        try:
            b = os.read(fd, min(n, 1 << 20))
        except BlockingIOError:  # a spinning read (read_frame(spin=True)): nothing yet
            continue
        if not b:
            raise EOFError("pipe closed mid-frame")
        chunks.append(b)
        n -= len(b)
    return b"".join(chunks)


def read_frame(fd: int, spin: bool = False) -> tuple[dict, bytes]:
    """One frame. spin=True polls a non-blocking fd instead of sleeping in read(): the timing
    stage's per-call answers arrive within microseconds, and a thread that slept meanwhile comes
    back on a cold, slower core (measured on the H200 host: the next launch no longer hid behind
    the L2 flush)."""
    if spin:
        os.set_blocking(fd, False)
    try:
        magic, hlen, plen = _PREFIX.unpack(_read_exact(fd, _PREFIX.size))
        if magic != MAGIC or hlen > MAX_HEADER:
            raise ValueError("bad frame")
        header = json.loads(_read_exact(fd, hlen))
        return header, _read_exact(fd, plen) if plen else b""
    finally:
        if spin:
            os.set_blocking(fd, True)
