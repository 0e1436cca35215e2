import os, sys as system
from ..pkg import (a as b, c,)
x: int = 1_000 + 0x_ff * 0o7 - 0b1 / 1.5e-3 // 2j % 3 @ m
del x[1:2, ::3], y.z
async def f[T: int, *Ts, **P](a, /, b=2, *args: *Ts, c, d=4, **kw) -> "r":
    global g
    nonlocal h
    async with open(p) as fp, (q := 3):
        await fp
    async for i, *j in k:
        yield from i
    return lambda x, *, y=1: (yield)
@decorator(arg)
class C(Base, metaclass=M):
    """doc"""
    type Alias[K] = dict[K, int]
