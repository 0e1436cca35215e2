match cmd:
    case [Point(x=0, y=0) as p, *rest] if p:
        pass
    case {"k": 1 | 2, **others}:
        pass
    case -1 + 2j | None | "s" | a.b:
        pass
    case _:
        pass
try:
    pass
except* (A, B) as e:
    raise X from e
else:
    pass
finally:
    pass
while not a < b <= c is not d not in e:
    break
else:
    continue
with (a as b, c as d,):
    [i for i in range(3) if i async for j in k]
    {k: v for k, v in d}
    {*a, *b}
    print(*args, **kwargs, sep="")
