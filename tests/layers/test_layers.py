"""Layers point one way: the command line sits on top and nothing imports it; no module of
the package shadows a standard-library module."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "fito"
TOP = {"fito.cli", "fito.cli.commands", "fito.__main__"}


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
