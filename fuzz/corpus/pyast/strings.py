s = f"{x!r:>{width}.{prec}} {y=} {{lit}} {'nested' + f'{z:{w}}'}" r"\d" u"u" "a" 'b'
t = "\x00\xff\n" r"\N" "\N{EM DASH}\u00e9\U0001F600\t\101" f"""multi
{line:
>3}"""
u = b"\x00\xff" rb"\d" B"x"
