"""Layers point one way: the command line sits on top and nothing imports it; the searches
of fito/check/ see the compiled model only through the model interface; no module of the
package shadows a standard-library module."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "fito"
TOP = {"fito.cli", "fito.cli.commands", "fito.__main__"}
# the model interface (docs/model-interface.md): all fito/check/ may import of fito/semantics/
INTERFACE = {"fito.semantics.compiled", "fito.semantics.packed"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def _module(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts)


def _is_top(name: str) -> bool:
    return any(name == t or name.startswith(t + ".") for t in TOP)


def test_nothing_below_the_command_line_imports_it() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        mod = _module(path)
        if _is_top(mod):
            continue
        bad = sorted(i for i in _imports(path) if _is_top(i))
        if bad:
            offenders.append(f"{mod}: {', '.join(bad)}")
    assert not offenders, offenders


def test_no_module_shadows_the_standard_library() -> None:
    stdlib = set(sys.stdlib_module_names)
    shadows = sorted(
        _module(p) for p in PACKAGE.rglob("*.py") if p.stem in stdlib and p.stem != "__main__"
    )
    assert not shadows, shadows


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every module an import names, at any depth (inside functions
    too), leaving out `if TYPE_CHECKING:` blocks; `from p import m` names p.m as well."""
    out: list[tuple[int, str]] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        todo.extend(ast.iter_child_nodes(node))
    return sorted(out)


def _semantics_beyond_the_interface(source: str) -> list[str]:
    """The imports of fito.semantics a module of fito/check makes other than the interface."""
    bad = []
    for line, name in _run_time_imports(ast.parse(source)):
        if name != "fito.semantics" and not name.startswith("fito.semantics."):
            continue
        if name == "fito.semantics" or any(
            name == m or name.startswith(m + ".") for m in INTERFACE
        ):
            continue  # the package itself (`from fito.semantics import compiled`)
        if any(m.startswith(name + ".") for m in INTERFACE):
            continue  # `from fito.semantics import packed` names fito.semantics too
        bad.append(f"{line}: {name}")
    return bad


def test_the_searches_use_only_the_model_interface() -> None:
    offenders = {}
    for path in sorted((PACKAGE / "check").rglob("*.py")):
        bad = _semantics_beyond_the_interface(path.read_text(encoding="utf-8"))
        if bad:
            offenders[_module(path)] = bad
    assert not offenders, offenders


def test_the_interface_check_sees_imports_in_functions_but_not_type_checking_blocks() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from fito.semantics.compiled import Compiled\n"
        "from fito.semantics import packed\n"
        "if TYPE_CHECKING:\n"
        "    from fito.semantics.network import Network\n"
        "def f():\n"
        "    from fito.semantics.ir import Fault\n"
        "    import fito.semantics.state.packing\n"
        "    from fito.semantics import network\n"
    )
    assert _semantics_beyond_the_interface(source) == [
        "7: fito.semantics.ir",
        "7: fito.semantics.ir.Fault",
        "8: fito.semantics.state.packing",
        "9: fito.semantics.network",
    ]
