"""Does the device start inside the sandbox? Run by the engine before a GPU run.

Creates a CUDA context and allocates device memory through the driver API (no
torch import, so it takes about a second), then writes "ok" to fd 4. Any
failure is printed with the driver's error name and the process exits 1.
Usage: python -I sandbox_probe.py cuda|cpu
"""
import ctypes
import os
import sys


def probe_cuda():
    cu = ctypes.CDLL("libcuda.so.1")

    def check(what, rc):
        if rc != 0:
            name = ctypes.c_char_p()
            cu.cuGetErrorName(rc, ctypes.byref(name))
            text = ctypes.c_char_p()
            cu.cuGetErrorString(rc, ctypes.byref(text))
            raise SystemExit(f"{what} failed: {rc} {(name.value or b'').decode()} "
                             f"{(text.value or b'').decode()}")

    check("cuInit", cu.cuInit(0))
    count = ctypes.c_int()
    check("cuDeviceGetCount", cu.cuDeviceGetCount(ctypes.byref(count)))
    if count.value < 1:
        raise SystemExit("cuDeviceGetCount: no device")
    dev = ctypes.c_int()
    check("cuDeviceGet", cu.cuDeviceGet(ctypes.byref(dev), 0))
    ctx = ctypes.c_void_p()
    check("cuDevicePrimaryCtxRetain", cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))
    check("cuCtxSetCurrent", cu.cuCtxSetCurrent(ctx))
    ptr = ctypes.c_uint64()
    check("cuMemAlloc", cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(1 << 20)))
    check("cuMemFree", cu.cuMemFree_v2(ptr))
    return f"{count.value} device(s)"


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    detail = probe_cuda() if what == "cuda" else "started"
    os.write(4, f"ok {detail}\n".encode())


if __name__ == "__main__":
    main()
