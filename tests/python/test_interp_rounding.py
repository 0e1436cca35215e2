"""The CPU interpreter rounds fp32 -> bf16 to nearest even once the runner loaded a module, as
compiled kernels do (python/tritonrl_runner/interp_rounding.py). The expected bits come from
torch's own fp32 -> bf16 conversion, which rounds to nearest even."""
import os

os.environ["TRITON_INTERPRET"] = "1"

import json  # noqa: E402
import pathlib  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
from tritonrl_runner import interp_rounding, taskmod  # noqa: E402


def _edge_values() -> torch.Tensor:
    one = 1.0
    ulp = 2.0**-7  # bf16 spacing in [1, 2)
    specials = [
        0.0, -0.0, one, one + ulp / 2,  # a tie: stays at the even 1.0
        one + 3 * ulp / 2,  # a tie: rounds up to the even 1 + 2 ulp
        one + ulp / 2 + 2.0**-20,  # just above a tie: up
        one + ulp / 2 - 2.0**-20,  # just below a tie: down
        2.0 - 2.0**-20,  # carries into the next binade
        3.3895313892515355e38,  # the largest bf16, exactly
        3.4028234663852886e38,  # fp32 max: rounds to infinity
        float("inf"), float("-inf"),
        1e-40, -1e-40, 1.4e-45,  # fp32 subnormals
        -5.015625, 5.0078125, -7.99,
    ]
    torch.manual_seed(0)
    spread = torch.randn(20000) * torch.exp(torch.randn(20000) * 8)
    return torch.cat([torch.tensor(specials, dtype=torch.float32), spread.float()])


def _torch_bits(x: torch.Tensor) -> np.ndarray:
    return x.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)


def test_bits_match_torch_round_to_nearest_even():
    x = _edge_values()
    got = interp_rounding.fp32_to_bf16_bits(x.numpy())
    assert got.dtype == np.uint16 and got.shape == tuple(x.shape)
    np.testing.assert_array_equal(got, _torch_bits(x))
    assert interp_rounding.fp32_to_bf16_bits(np.float32(1.0 + 2.0**-8 + 2.0**-20)).shape == ()


def test_nan_stays_nan_with_its_sign():
    x = np.array([np.nan, -np.nan, np.float32(np.nan) * 0], dtype=np.float32)
    bits = interp_rounding.fp32_to_bf16_bits(x)
    back = torch.from_numpy(bits.view(np.int16)).view(torch.bfloat16).float().numpy()
    assert np.isnan(back).all()
    assert (bits >> 15).tolist() == (x.view(np.uint32) >> 31).tolist()


@triton.jit
def _store_kernel(x_ptr, implicit_ptr, explicit_ptr, rtz_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(implicit_ptr + offs, x, mask=mask)  # the store casts
    tl.store(explicit_ptr + offs, x.to(tl.bfloat16), mask=mask)
    tl.store(rtz_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz"), mask=mask)


def _run_kernel(x: torch.Tensor):
    outs = [torch.empty(x.shape, dtype=torch.bfloat16) for _ in range(3)]
    _store_kernel[(triton.cdiv(x.numel(), 1024),)](x, *outs, x.numel(), BLOCK=1024)
    return [o.view(torch.int16).numpy().view(np.uint16) for o in outs]


def test_interpreted_kernel_rounds_like_a_gpu_after_load_module(tmp_path):
    task = tmp_path / "t.py"
    task.write_text("X = 1\n")
    taskmod.load_module(task)  # installs the rounding fix, as the worker does before a candidate
    x = _edge_values()
    x = x[~torch.isnan(x)]  # NaN bits are checked above
    implicit, explicit, rtz = _run_kernel(x)
    np.testing.assert_array_equal(implicit, _torch_bits(x))
    np.testing.assert_array_equal(explicit, _torch_bits(x))
    # An explicit "rtz" keeps Triton's truncation.
    truncated = (x.numpy().view(np.uint32) >> 16).astype(np.uint16)
    finite = np.isfinite(x.numpy()) & (np.abs(x.numpy()) > 1e-37)  # Triton flushes fp32 subnormals
    np.testing.assert_array_equal(rtz[finite], truncated[finite])


def test_install_is_idempotent():
    from triton.runtime import interpreter

    assert interp_rounding.install()
    first = interpreter._convert_float
    assert interp_rounding.install()
    assert interpreter._convert_float is first


def test_unpatched_interpreter_still_truncates():
    # If a Triton upgrade fixes the interpreter, this fails: then the patch can go.
    code = f"""
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})
import json, torch, numpy as np
import test_interp_rounding as t
x = torch.tensor([1.0 + 2.0**-8 + 2.0**-20, 1.99], dtype=torch.float32)
implicit = t._run_kernel(x)[0]
print(json.dumps([implicit.tolist(), (x.numpy().view(np.uint32) >> 16).astype(np.uint16).tolist()]))
"""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    got, truncated = json.loads(run.stdout.strip().splitlines()[-1])
    assert got == truncated
