"""The module floors of docs/architecture.md against the code.

docs/architecture.md's module table gives each module under src/ a floor and the modules it may
use (its allowed arrows). This test reads every arrow the code has and fails, naming the arrow and
where it comes from, when one is not allowed:
- link arrows: `target_link_libraries` in src/*/CMakeLists.txt, each target mapped to the module
  folder that defines it (tritonrl_tokenizer belongs to model, tritonrl_sandbox_child to eval, the
  `tritonrl` executable to cli); a name built from a variable (`tritonrl_${m}`) stands for every
  module;
- include arrows: `#include "<module>/..."` in src/<module>/, which the linker does not see when
  a header is used inline.
The ground floor (floor 0: base, vocab) is open to every module. It also checks the table itself: every module folder has one row, an allowed arrow never points up
a floor, and the allowed arrows form no cycle.
"""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EVERY_MODULE = "every module"


# ---- the table in docs/architecture.md ----------------------------------------------------------

ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([a-z_]+)`\s*\|(.*)$")


def parse_floors(doc_text: str, doc_name: str = "docs/architecture.md"):
    """{module: (floor, allowed set or EVERY_MODULE)} from rows `| floor | `module` | what |
    uses | page |`. Raises ValueError naming the line of a row it cannot read."""
    table = {}
    for lineno, line in enumerate(doc_text.splitlines(), 1):
        m = ROW.match(line)
        if not m:
            continue
        cells = [c.strip() for c in m.group(3).split("|")]
        if len(cells) < 3:
            raise ValueError(f"{doc_name}:{lineno}: a module row needs the columns "
                             f"floor | module | what it is | uses | page")
        floor, module, uses = int(m.group(1)), m.group(2), cells[1]
        if module in table:
            raise ValueError(f"{doc_name}:{lineno}: module {module} has a second row")
        allowed = EVERY_MODULE if EVERY_MODULE in uses else set(re.findall(r"`([a-z_]+)`", uses))
        table[module] = (floor, allowed)
    if not table:
        raise ValueError(f"{doc_name}: no module rows (| floor | `module` | ... |) found")
    return table


# ---- the arrows in the code ---------------------------------------------------------------------

def _strip_cmake_comments(text: str) -> str:
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def link_arrows(cmake_files: dict):
    """[(from_module, to_module or EVERY_MODULE, where)] from {module: CMakeLists text}. Raises
    ValueError for a tritonrl_* name that no module folder defines."""
    owner, texts = {}, {}
    for module, text in cmake_files.items():
        texts[module] = _strip_cmake_comments(text)
        for name in re.findall(r"\badd_(?:library|executable)\s*\(\s*([A-Za-z0-9_]+)", texts[module]):
            owner[name] = module
    arrows = []
    for module, text in texts.items():
        for call in re.finditer(r"\btarget_link_libraries\s*\(([^)]*)\)", text):
            args = call.group(1).split()
            target, deps = args[0], args[1:]
            src = owner.get(target, module)
            lineno = text.count("\n", 0, call.start()) + 1
            where = f"src/{module}/CMakeLists.txt:{lineno}: target_link_libraries({target} ...)"
            for dep in deps:
                if not dep.startswith("tritonrl"):
                    continue
                if "${" in dep:
                    arrows.append((src, EVERY_MODULE, f"{where} links {dep}"))
                elif dep in owner:
                    arrows.append((src, owner[dep], f"{where} links {dep}"))
                else:
                    raise ValueError(f"{where}: links {dep}, which no src/*/CMakeLists.txt defines")
    return [(a, b, w) for a, b, w in arrows if a != b]


INCLUDE = re.compile(r'^\s*#\s*include\s*"([a-z_]+)/', re.MULTILINE)


def include_arrows(sources: dict, modules):
    """[(from_module, to_module, where)] from {path: (module, text)}: includes of another
    module's headers."""
    arrows = []
    for path, (module, text) in sources.items():
        for m in INCLUDE.finditer(text):
            target = m.group(1)
            if target != module and target in modules:
                lineno = text.count("\n", 0, m.start()) + 1
                arrows.append((module, target, f"{path}:{lineno}: #include \"{target}/...\""))
    return arrows


# ---- the check ----------------------------------------------------------------------------------

def _cycle(table):
    """One cycle of allowed arrows as a list of modules, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        floor_allowed = table[node][1]
        targets = sorted(table) if floor_allowed == EVERY_MODULE else sorted(floor_allowed)
        for nxt in targets:
            if nxt == node or nxt not in table:
                continue
            if state.get(nxt) == "open":
                return path + [node, nxt]
            if nxt not in state:
                found = visit(nxt, path + [node])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(table):
        if start not in state:
            found = visit(start, [])
            if found:
                return found[found.index(found[-1]):]
    return None


def arrow_problems(table, modules, arrows):
    """Every way the code and the table disagree, one readable line each (empty when none)."""
    problems = []
    for m in sorted(set(modules) - set(table)):
        problems.append(f"module {m} (src/{m}/) has no row in the table")
    for m in sorted(set(table) - set(modules)):
        problems.append(f"the table has a row for {m}, but src/{m}/ does not exist")
    for module, (floor, allowed) in sorted(table.items()):
        if allowed == EVERY_MODULE:
            continue
        for target in sorted(allowed):
            if target not in table:
                problems.append(f"{module} may use {target}, which has no row")
            elif table[target][0] > floor:
                problems.append(f"allowed arrow {module} -> {target} points up "
                                f"(floor {floor} -> floor {table[target][0]})")
    cycle = _cycle(table)
    if cycle:
        problems.append("the allowed arrows form a cycle: " + " -> ".join(cycle))
    for src, dst, where in arrows:
        if src not in table:
            continue  # reported above as a module without a row
        allowed = table[src][1]
        if allowed == EVERY_MODULE:
            continue
        if dst != EVERY_MODULE and dst in table and table[dst][0] == 0:
            continue  # the ground floor (base, vocab) is open to every module
        if dst == EVERY_MODULE or dst not in allowed:
            problems.append(f"arrow {src} -> {dst} is not allowed by docs/architecture.md ({where})")
    return problems


def _repo_inputs():
    modules = sorted(p.name for p in (ROOT / "src").iterdir() if p.is_dir())
    cmake = {m: (ROOT / "src" / m / "CMakeLists.txt").read_text()
             for m in modules if (ROOT / "src" / m / "CMakeLists.txt").exists()}
    sources = {}
    for m in modules:
        for path in sorted((ROOT / "src" / m).rglob("*")):
            if path.suffix in (".h", ".cpp", ".in") and path.is_file():
                sources[str(path.relative_to(ROOT))] = (m, path.read_text(errors="replace"))
    return modules, cmake, sources


def test_every_arrow_in_the_code_is_allowed_by_the_architecture_page():
    table = parse_floors((ROOT / "docs" / "architecture.md").read_text())
    modules, cmake, sources = _repo_inputs()
    arrows = link_arrows(cmake) + include_arrows(sources, modules)
    assert len(arrows) > 20, "found almost no arrows: the CMake or include parsing broke"
    problems = arrow_problems(table, modules, arrows)
    assert not problems, "docs/architecture.md and the code disagree:\n  " + "\n  ".join(problems)


# ---- the check itself on small synthetic trees --------------------------------------------------

SYNTHETIC_DOC = """
| floor | module | what it is | uses (allowed arrows) | page |
|---|---|---|---|---|
| 0 | `base` | status and files | — | — |
| 1 | `verify` | the verifier | `base` | verify.md |
| 2 | `eval` | the engine | `base`, `verify` | eval.md |
| 3 | `cli` | the command | every module | — |
"""

SYNTHETIC_CMAKE = {
    "base": "add_library(tritonrl_base status.cpp)\n",
    "verify": "add_library(tritonrl_verify v.cpp)\n"
              "target_link_libraries(tritonrl_verify PUBLIC tritonrl_base fmt::fmt)\n",
    "eval": "add_library(tritonrl_sandbox_child SHARED s.cpp)\n"
            "add_library(tritonrl_eval e.cpp)\n"
            "# target_link_libraries(tritonrl_eval PRIVATE tritonrl_cli)  (a comment: no arrow)\n"
            "target_link_libraries(tritonrl_eval\n  PUBLIC tritonrl_base tritonrl_sandbox_child\n"
            "  PRIVATE tritonrl_verify)\n",
    "cli": "add_executable(tritonrl main.cpp)\n"
           "foreach(m IN LISTS TRITONRL_MODULES)\n"
           "  target_link_libraries(tritonrl PRIVATE tritonrl_${m})\nendforeach()\n",
}


def _synthetic_problems(cmake=None, doc=SYNTHETIC_DOC, sources=None):
    table = parse_floors(doc)
    modules = ["base", "verify", "eval", "cli"]
    arrows = link_arrows(cmake or SYNTHETIC_CMAKE) + include_arrows(sources or {}, modules)
    return arrow_problems(table, modules, arrows)


def test_synthetic_tree_within_its_floors_passes():
    assert _synthetic_problems() == []


def test_an_upward_link_is_named_with_its_file_and_line():
    cmake = dict(SYNTHETIC_CMAKE)
    cmake["verify"] += "target_link_libraries(tritonrl_verify PRIVATE tritonrl_eval)\n"
    problems = _synthetic_problems(cmake)
    assert problems == ["arrow verify -> eval is not allowed by docs/architecture.md "
                        "(src/verify/CMakeLists.txt:3: target_link_libraries(tritonrl_verify ...) "
                        "links tritonrl_eval)"]


def test_a_sub_target_counts_as_its_module_and_a_variable_name_as_every_module():
    cmake = dict(SYNTHETIC_CMAKE)
    # eval's own shared library, linked from verify: the arrow is verify -> eval.
    cmake["verify"] += "target_link_libraries(tritonrl_verify PRIVATE tritonrl_sandbox_child)\n"
    cmake["base"] += "target_link_libraries(tritonrl_base PRIVATE tritonrl_${x})\n"
    problems = _synthetic_problems(cmake)
    assert len(problems) == 2
    assert problems[0].startswith("arrow base -> every module is not allowed")
    assert problems[1].startswith("arrow verify -> eval is not allowed")


def test_the_ground_floor_is_open_to_every_module():
    cmake = dict(SYNTHETIC_CMAKE)
    cmake["eval"] += "target_link_libraries(tritonrl_eval PRIVATE tritonrl_base)\n"
    doc = SYNTHETIC_DOC.replace("| `base`, `verify` | eval.md |", "| `verify` | eval.md |")
    assert _synthetic_problems(cmake, doc=doc) == []


def test_an_include_without_a_link_is_an_arrow_too():
    sources = {"src/base/status.h": ("base", '#pragma once\n#include <string>\n#include "verify/rules.h"\n'),
               "src/eval/e.cpp": ("eval", '#include "verify/verify.h"\n#include "base/status.h"\n')}
    problems = _synthetic_problems(sources=sources)
    assert problems == ["arrow base -> verify is not allowed by docs/architecture.md "
                        "(src/base/status.h:3: #include \"verify/...\")"]


def test_the_table_itself_must_point_down_and_have_no_cycle():
    up = SYNTHETIC_DOC.replace("| 1 | `verify` | the verifier | `base` |",
                               "| 1 | `verify` | the verifier | `base`, `eval` |")
    problems = _synthetic_problems(doc=up)
    assert "allowed arrow verify -> eval points up (floor 1 -> floor 2)" in problems
    assert "the allowed arrows form a cycle: eval -> verify -> eval" in problems


def test_a_module_without_a_row_and_an_unknown_target_are_reported():
    doc = SYNTHETIC_DOC.replace("| 1 | `verify` | the verifier | `base` | verify.md |\n", "")
    doc = doc.replace("`base`, `verify`", "`base`")
    assert "module verify (src/verify/) has no row in the table" in _synthetic_problems(doc=doc)
    cmake = dict(SYNTHETIC_CMAKE)
    cmake["eval"] += "target_link_libraries(tritonrl_eval PRIVATE tritonrl_nowhere)\n"
    with pytest.raises(ValueError, match="links tritonrl_nowhere, which no src/"):
        link_arrows(cmake)
