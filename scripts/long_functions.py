#!/usr/bin/env python3
"""Lists every function longer than a limit (default 120 lines): C++ under src/ (src/pyast
excepted: a recursive-descent parser is long by nature) and the Python runner.

One line per function, longest first: FILE:LINE NAME LENGTH. A report, not a check: the exit
status is 0 whatever it finds (2 only for bad arguments).

C++ is read by brace matching, not by a compiler: comments, string and character literals (raw
strings too) and preprocessor lines are blanked first, then every '{' at namespace or class level
is classified by the text before it (its "head"): a namespace, class, struct, union or enum; a
function (the head ends in a parameter list, perhaps followed by qualifiers, a trailing return
type or a constructor's initialiser list); a lambda at namespace level (a command's registration);
or anything else (an initialiser). A function's length runs from its head's first line to its
closing brace; lambdas and local classes inside it count towards it. Python functions come from
the ast module (`def` to its last line, nested ones listed on their own as well).

Usage: scripts/long_functions.py [--limit N] [--root DIR]
"""

import argparse
import ast
import os
import re
import sys

CPP_EXTENSIONS = (".cpp", ".cc", ".h", ".hpp")
SCOPE_KEYWORDS = re.compile(r"\b(namespace|class|struct|union|enum)\b")
IDENTIFIER = re.compile(r"[A-Za-z_~][A-Za-z_0-9]*(?:\s*::\s*~?[A-Za-z_][A-Za-z_0-9]*)*\s*$")


def blank_cpp(text):
    """The text with comments, literals and preprocessor lines replaced by spaces (newlines
    kept, so offsets and line numbers stay those of the file)."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if at_line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":  # a directive, with its continuation lines
                j = j + 2 if text[j] == "\\" and j + 1 < n else j + 1
            blank(i, j)
            i = j
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delimiter = text[i + 2:open_paren]
            end = text.find(")" + delimiter + '"', open_paren)
            j = n if end < 0 else end + len(delimiter) + 2
            blank(i, j)
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                i += 1  # a digit separator (1'000)
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i, min(j + 1, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def strip_head(head):
    """The head without leading access specifiers, attributes and template parameter lists."""
    head = re.sub(r"^\s*(public|private|protected)\s*:(?!:)", "", head)
    head = head.strip()
    while head.startswith("template"):
        depth, k = 0, len("template")
        while k < len(head):
            if head[k] == "<":
                depth += 1
            elif head[k] == ">":
                depth -= 1
                if depth == 0:
                    k += 1
                    break
            k += 1
        head = head[k:].strip()
    return head


def depth0_positions(head, chars):
    """Positions of `chars` in `head` outside parentheses, brackets and braces."""
    depth, found = 0, []
    for k, ch in enumerate(head):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in chars and depth == 0:
            found.append(k)
    return found


def classify(head):
    """('scope' | 'function' | 'lambda' | 'other', name) for the text before a '{'."""
    head = strip_head(head)
    if not head:
        return "other", ""
    if head.rstrip().endswith("=") or head.rstrip().endswith("return"):
        return "other", ""
    first_paren = head.find("(")
    scope = SCOPE_KEYWORDS.search(head)
    if scope and (first_paren < 0 or scope.start() < first_paren):
        return "scope", ""
    if head.startswith("extern"):
        return "scope", ""
    # A lambda: "[captures](params) mutable -> T" or "[captures]" right before the brace.
    lam = re.search(r"\[[^\[\]]*\]\s*(\([^()]*(\([^()]*\)[^()]*)*\))?\s*(mutable)?\s*(noexcept)?\s*(->\s*[\w:<>,\s*&]+)?\s*$", head)
    if lam and (lam.start() == 0 or not (head[lam.start() - 1].isalnum() or head[lam.start() - 1] in "_)]")):
        return "lambda", ""
    if first_paren < 0:
        return "other", ""
    # '=' outside parentheses before the parameter list: an initialiser (x = f(...) {...}).
    for k in depth0_positions(head, "="):
        if k < first_paren and not head[:k].rstrip().endswith("operator") and head[k + 1:k + 2] != "=":
            return "other", ""
    before = head[:first_paren]
    if before.rstrip().endswith("operator"):
        # operator()(...): the call operator's own parentheses come first.
        name_end = head.find("(", head.find(")", first_paren) + 1)
        before = head[:name_end] if name_end > 0 else before
    match = re.search(r"((?:[A-Za-z_~][\w]*\s*::\s*)*(?:operator\s*\S+?|~?[A-Za-z_]\w*))\s*$", before)
    if not match:
        return "other", ""
    name = re.sub(r"\s+", "", match.group(1))
    if name in ("if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignas"):
        return "other", ""
    # The parameter list must close, and what follows it must be qualifiers, a trailing return
    # type or an initialiser list, not an operator of an expression.
    depth, k = 0, first_paren
    while k < len(head):
        if head[k] == "(":
            depth += 1
        elif head[k] == ")":
            depth -= 1
            if depth == 0:
                break
        k += 1
    if depth != 0:
        return "other", ""
    rest = head[k + 1:].strip()
    if rest and not re.match(r"^(const|volatile|noexcept|override|final|mutable|&|&&|->|:|requires|try|\s|\w|\(|\)|<|>|,|\*|\{|\})*$", rest):
        return "other", ""
    return "function", name


def cpp_functions(path, text):
    """(line, name, length) of every function and namespace-level lambda of a C++ file."""
    code = blank_cpp(text)
    line_of = []
    line = 1
    for ch in code:
        line_of.append(line)
        if ch == "\n":
            line += 1
    found = []
    # Each open brace: (kind, name, start offset of its head).
    stack = []
    head_start = 0
    for i, ch in enumerate(code):
        if ch == "{":
            inside_function = any(kind in ("function", "lambda") for kind, _, _ in stack)
            if inside_function:
                stack.append(("block", "", i))
            else:
                head = code[head_start:i]
                kind, name = classify(head)
                start = head_start + (len(head) - len(head.lstrip()))
                if kind == "lambda":
                    outer = next((n for k, n, _ in reversed(stack) if n), "")
                    name = "lambda" + (" in " + outer if outer else "")
                    start = head_start + head.rfind("[")  # the capture list
                stack.append((kind, name, start))
            head_start = i + 1
        elif ch == "}":
            if stack:
                kind, name, start = stack.pop()
                if kind in ("function", "lambda") and not any(
                    k in ("function", "lambda") for k, _, _ in stack
                ):
                    first, last = line_of[start], line_of[i]
                    found.append((first, name, last - first + 1))
            head_start = i + 1
        elif ch == ";":
            head_start = i + 1
        elif ch == ":" and not any(k in ("function", "lambda") for k, _, _ in stack):
            # An access specifier ends a head; "::" and initialiser lists do not.
            before = code[head_start:i].strip()
            if before in ("public", "private", "protected") and code[i + 1:i + 2] != ":":
                head_start = i + 1
    return found


def python_functions(text):
    tree = ast.parse(text)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((node.lineno, node.name, node.end_lineno - node.lineno + 1))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=120, help="list functions longer than this")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    rows = []
    for base, dirs, files in os.walk(os.path.join(root, "src")):
        dirs[:] = sorted(d for d in dirs if os.path.join(base, d) != os.path.join(root, "src", "pyast"))
        for f in sorted(files):
            if f.endswith(CPP_EXTENSIONS):
                path = os.path.join(base, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for line, name, length in cpp_functions(path, fh.read()):
                        rows.append((length, os.path.relpath(path, root), line, name))
    runner = os.path.join(root, "python", "tritonrl_runner")
    for base, dirs, files in os.walk(runner):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(base, f)
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
                try:
                    functions = python_functions(text)
                except SyntaxError as e:
                    print(f"{os.path.relpath(path, root)}:{e.lineno}: not parsed: {e.msg}")
                    continue
                for line, name, length in functions:
                    rows.append((length, os.path.relpath(path, root), line, name))
    for length, path, line, name in sorted(rows, key=lambda r: (-r[0], r[1], r[2])):
        if length > args.limit:
            print(f"{path}:{line} {name} {length}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
