"""Cases for compare_agreement_test.cpp: the same output and reference bytes judged by the Python
comparison (tritonrl_runner.taskmod) here and by the C++ one (src/eval/compare.cpp) there.

Usage: python compare_agreement_cases.py OUTDIR
Writes OUTDIR/<name>.out and OUTDIR/<name>.ref (raw little-endian bytes, row-major) and
OUTDIR/cases.json: one object per case with the dtypes, shapes, tolerance, rule ("ours":
taskmod.compare, allclose and relative L2; "kernelbench": taskmod.allclose_only) and Python's
verdict. A case with "divergence" is a known, deliberate difference (docs/architecture.md, "One
decision made twice"): the C++ test checks that the two still differ there, as the docs say.
"""
import json
import math
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from tritonrl_runner import taskmod  # noqa: E402

NAN, INF = math.nan, math.inf


def _category(reason: str) -> str:
    """Python's reason text as the C++ CompareResult::code it corresponds to."""
    for prefix, code in (("", "ok"), ("output 0: non-finite", "nonfinite"),
                         ("output 0: not allclose", "not_allclose"),
                         ("output 0: relative L2", "rel_l2_exceeded"), ("output 0: shape", "shape_mismatch")):
        if (reason == "" and prefix == "") or (prefix and reason.startswith(prefix)):
            return code
    raise ValueError(f"unexpected reason from taskmod.compare: {reason!r}")


def _next_up(x: torch.Tensor, steps: int = 1) -> torch.Tensor:
    """x moved `steps` representable values towards +inf in its own dtype."""
    for _ in range(steps):
        x = torch.nextafter(x, torch.full_like(x, INF))
    return x


def _last_inside(ref: float, atol: float, rtol: float, dtype) -> torch.Tensor:
    """The largest value of `dtype` above `ref` whose distance from ref (in float64) is within
    atol + rtol * |ref|, as the float64 allclose both sides compute decides it."""
    r = torch.tensor(ref, dtype=dtype)
    allowed = atol + rtol * abs(float(r))
    x = torch.tensor(float(r) + allowed, dtype=dtype)  # within a step of the edge
    while float(x) - float(r) > allowed:
        x = torch.nextafter(x, r)
    while float(_next_up(x)) - float(r) <= allowed:
        x = _next_up(x)
    return x


def _fill(n: int, value: float, dtype) -> torch.Tensor:
    return torch.full((n,), value, dtype=dtype)


def _with(t: torch.Tensor, index: int, value) -> torch.Tensor:
    t = t.clone()
    t[index] = value
    return t


def cases():
    g = torch.Generator().manual_seed(1234)
    out = []

    def add(name, o, r, atol, rtol, rule="ours", divergence=None):
        out.append(dict(name=name, out=o, ref=r, atol=atol, rtol=rtol, rule=rule, divergence=divergence))

    for dtype, tol in ((torch.float32, 1e-4), (torch.float64, 1e-4), (torch.float16, 1e-2),
                       (torch.bfloat16, 1e-2)):
        d = str(dtype).removeprefix("torch.")
        ref = torch.randn(4, 33, generator=g).to(dtype)
        add(f"{d}_equal", ref.clone(), ref, tol, tol)
        noise = (torch.rand(4, 33, generator=g) - 0.5) * tol * 0.5
        add(f"{d}_noise_inside", (ref.double() + noise.double()).to(dtype), ref, tol, tol)
        add(f"{d}_noise_far", (ref.double() + noise.double() * 400).to(dtype), ref, tol, tol)
        # One element exactly at the tolerance (a power-of-two rtol, references of 1.0: the bound
        # is exact in every dtype), and one representable step past it.
        step = 2.0 ** -10 if dtype in (torch.float32, torch.float64) else 2.0 ** -6
        ones = _fill(64, 1.0, dtype)
        at = _with(ones, 17, 1.0 + step)
        add(f"{d}_exactly_at_tolerance", at, ones, 0.0, step)
        add(f"{d}_one_step_past_tolerance", _with(ones, 17, _next_up(at[17])), ones, 0.0, step)
        # The last value inside atol + rtol * |ref| for a reference that is not a power of two.
        base = _fill(64, 1.3, dtype)
        inside = _last_inside(float(base[0]), tol, tol, dtype)
        add(f"{d}_last_value_inside", _with(base, 5, inside), base, tol, tol)
        add(f"{d}_first_value_outside", _with(base, 5, _next_up(inside)), base, tol, tol)
        # Non-finite values: parity required, a finite reference never meets a non-finite output.
        add(f"{d}_nan_matches_nan", _with(ones, 3, NAN), _with(ones, 3, NAN), tol, tol)
        add(f"{d}_inf_matches_inf", _with(ones, 3, -INF), _with(ones, 3, -INF), tol, tol)
        add(f"{d}_finite_where_ref_nan", ones.clone(), _with(ones, 3, NAN), tol, tol)
        add(f"{d}_opposite_infinity", _with(ones, 3, -INF), _with(ones, 3, INF), tol, tol)
        add(f"{d}_large_finite_where_ref_inf", _with(ones, 3, torch.finfo(dtype).max),
            _with(ones, 3, INF), tol, tol)
        add(f"{d}_inf_where_ref_finite", _with(ones, 3, INF), ones.clone(), tol, tol)
        add(f"{d}_nan_where_ref_finite", _with(ones, 3, NAN), ones.clone(), tol, tol)
        # A zero reference needs an exact match: tiny outputs pass allclose through atol only.
        zeros = torch.zeros(50, dtype=dtype)
        add(f"{d}_zero_ref_exact", zeros.clone(), zeros, tol, tol)
        add(f"{d}_zero_ref_within_atol", _fill(50, tol / 4, dtype), zeros, tol, tol)
        add(f"{d}_zero_ref_within_atol_kernelbench", _fill(50, tol / 4, dtype), zeros, tol, tol,
            rule="kernelbench")
        # allclose passes, relative L2 does not: small references, each element near atol off.
        small = _fill(100, tol * 10, dtype)
        off = (small.double() + tol * 0.9).to(dtype)
        add(f"{d}_rel_l2_exceeded", off, small, tol, tol)
        add(f"{d}_rel_l2_ignored_by_kernelbench", off, small, tol, tol, rule="kernelbench")
        add(f"{d}_kernelbench_far", (ref.double() + noise.double() * 400).to(dtype), ref, tol, tol,
            rule="kernelbench")
        add(f"{d}_zero_tolerance_exact", ref.clone(), ref, 0.0, 0.0)
        add(f"{d}_zero_tolerance_one_step", _with(ref, (0, 0), _next_up(ref[0, 0])), ref, 0.0, 0.0)
        add(f"{d}_empty", torch.empty(0, 3, dtype=dtype), torch.empty(0, 3, dtype=dtype), tol, tol)
        add(f"{d}_shape_mismatch", ref.reshape(33, 4).clone(), ref, tol, tol)
        add(f"{d}_kernelbench_nan_matches_nan", _with(ones, 3, NAN), _with(ones, 3, NAN), tol, tol,
            rule="kernelbench",
            divergence="under KernelBench's rule C++ matches NaN with NaN; taskmod.allclose_only "
                       "(torch.allclose without equal_nan) does not")

    # Subnormal fp16 values (widened exactly on both sides).
    sub = torch.tensor([2.0 ** -24, 3 * 2.0 ** -24, 2.0 ** -15, -(2.0 ** -20)], dtype=torch.float16)
    add("float16_subnormals_equal", sub.clone(), sub, 0.0, 0.0)
    add("float16_subnormal_one_step", _with(sub, 0, 2 * 2.0 ** -24), sub, 0.0, 0.0)

    # Integers and bool: C++ requires equality, Python compares in float64 with the float rule.
    ints = torch.randint(-1000, 1000, (40,), generator=g, dtype=torch.int32)
    for dtype in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool):
        d = str(dtype).removeprefix("torch.")
        r = (ints % 2 == 0) if dtype == torch.bool else (ints.abs() % 100).to(dtype)
        add(f"{d}_equal", r.clone(), r, 1e-4, 1e-4)
        other = _with(r, 7, not bool(r[7])) if dtype == torch.bool else _with(r, 7, int(r[7]) + 1)
        add(f"{d}_one_element_differs", other, r, 1e-4, 1e-4)
    big = torch.tensor([1000, 2000], dtype=torch.int32)
    add("int32_within_float_tolerance", _with(big, 0, 1005), big, 1e-4, 1e-2,
        divergence="C++ requires integer outputs to be equal; taskmod.compare applies allclose in float64")
    huge = torch.tensor([2 ** 53, 7], dtype=torch.int64)
    add("int64_beyond_float64_precision", _with(huge, 0, 2 ** 53 + 1), huge, 0.0, 0.0,
        divergence="C++ compares int64 exactly; taskmod.compare casts to float64, where 2^53 + 1 "
                   "rounds to 2^53")
    f32 = torch.randn(10, generator=g)
    add("dtype_mismatch_same_values", f32.double(), f32, 1e-4, 1e-4,
        divergence="C++ rejects an output of another dtype; taskmod.compare compares the values")
    return out


def _bytes(t: torch.Tensor) -> bytes:
    return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def _finite_json(value):
    """Non-finite floats spelled "inf", "-inf", "nan": JSON has no such numbers."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _finite_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite_json(v) for v in value]
    return value


def main(outdir: str) -> None:
    folder = pathlib.Path(outdir)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = []
    for c in cases():
        o, r = c["out"], c["ref"]
        (folder / f"{c['name']}.out").write_bytes(_bytes(o))
        (folder / f"{c['name']}.ref").write_bytes(_bytes(r))
        entry = {k: c[k] for k in ("name", "atol", "rtol", "rule")}
        entry.update(out_dtype=str(o.dtype).removeprefix("torch."), ref_dtype=str(r.dtype).removeprefix("torch."),
                     out_shape=list(o.shape), ref_shape=list(r.shape))
        if c["rule"] == "ours":
            res = taskmod.compare(o, r, c["atol"], c["rtol"], chunk=7)  # slices, as on a device
            if taskmod.passes(o, r, c["atol"], c["rtol"], "ours") != res.ok:
                raise AssertionError(f"{c['name']}: taskmod.passes and taskmod.compare disagree")
            entry["python"] = dict(ok=res.ok, code=_category(res.reason), reason=res.reason,
                                   max_abs_err=res.max_abs_err, rel_l2=res.rel_l2, margin=res.margin)
        else:
            ok = taskmod.allclose_only(o, r, c["atol"], c["rtol"])
            if taskmod.passes(o, r, c["atol"], c["rtol"], "kernelbench") != ok:
                raise AssertionError(f"{c['name']}: taskmod.passes and allclose_only disagree")
            entry["python"] = dict(ok=ok)
        if c["divergence"]:
            entry["divergence"] = c["divergence"]
        manifest.append(entry)
    (folder / "cases.json").write_text(json.dumps(_finite_json(manifest), indent=1, allow_nan=False))
    print(f"{len(manifest)} cases in {folder}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: compare_agreement_cases.py OUTDIR")
    main(sys.argv[1])
