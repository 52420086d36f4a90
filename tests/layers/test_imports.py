"""fito's import graph has no cycle, and every import inside a function says why it is there.

The graph is read from the source (`ast`), not from a running interpreter: an edge for every
import of one of fito's modules, at module level or inside a function (a function-level
import only hides a cycle until the function runs), except those under `if TYPE_CHECKING:`
(never executed). A function-level import is for start-up time only (the command line builds
every command's parser; the heavy dependencies z3, sympy, numpy and torch load where they are
used), and its line says so: `# lazy-import: <reason>`, or it is a known exception below.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "fito"
MARKER = "# lazy-import:"

# Cycles that are allowed for now, while the packages that hold them are reworked: a cycle
# whose modules all lie in one of these packages is not reported. Empty this list as they go.
CYCLE_EXEMPT_PACKAGES: tuple[str, ...] = ()

# Packages whose function-level imports are not yet triaged (moved to module level or marked).
MARKER_EXEMPT_PACKAGES: tuple[str, ...] = ()

# Function-level imports without a marker on their line, by (importing module, imported
# module), each with the reason it is lazy.
KNOWN_LAZY: dict[tuple[str, str], str] = {}


@dataclass(frozen=True, slots=True)
class Import:
    """One import statement of a fito module, resolved to the fito modules it loads."""

    module: str  # the importing module
    line: int
    text: str  # the statement's first line
    targets: tuple[str, ...]  # fito modules it imports
    in_function: bool


def module_name(path: Path) -> str:
    """The dotted name of a file of the package (fito/a/__init__.py: fito.a)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: Collection[str]
) -> list[str]:
    """The known modules an import statement loads (the module, or `from package import sub`)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in known]
    base = node.module or ""
    if node.level:  # relative: from the importing module's package
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([base] if base else []))
    out = []
    for a in node.names:
        full = f"{base}.{a.name}"
        if full in known:
            out.append(full)
        elif base in known:
            out.append(base)
    return out


def imports_in(
    module: str, text: str, known: Collection[str], is_package: bool = False
) -> Iterator[Import]:
    """Every import statement of a module's source outside `if TYPE_CHECKING:` blocks."""
    lines = text.splitlines()

    def visit(nodes: Iterable[ast.AST], in_function: bool) -> Iterator[Import]:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                yield from visit(node.orelse, in_function)  # the body never runs
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets = tuple(_targets(node, module, is_package, known))
                yield Import(module, node.lineno, lines[node.lineno - 1], targets, in_function)
            inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            yield from visit(ast.iter_child_nodes(node), inner)

    yield from visit([ast.parse(text, module)], False)


IMPORTS: list[Import] = [
    imp
    for m, p in MODULES.items()
    for imp in imports_in(m, p.read_text(), MODULES, p.name == "__init__.py")
]


def import_graph() -> dict[str, set[str]]:
    """Module -> the fito modules it imports (module level and inside functions)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for imp in IMPORTS:
        graph[imp.module].update(t for t in imp.targets if t != imp.module)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sorted(out)


def _within(module: str, packages: tuple[str, ...]) -> str | None:
    return next((p for p in packages if module == p or module.startswith(p + ".")), None)


def _exempt_cycle(component: list[str]) -> bool:
    """All of the cycle's modules lie in one exempt package."""
    homes = {_within(m, CYCLE_EXEMPT_PACKAGES) for m in component}
    return len(homes) == 1 and None not in homes


def test_cycles_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_graph_counts_imports_inside_functions_not_type_checking_blocks() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import fito.a\n"
        "if TYPE_CHECKING:\n    from fito.b import X\nelse:\n    import fito.e\n"
        "def f():\n    from fito import c\n    from . import d\n"
    )
    known = {"fito.a", "fito.b", "fito.c", "fito.pkg.d", "fito.e"}
    found = [
        (i.targets, i.in_function) for i in imports_in("fito.pkg.m", source, known) if i.targets
    ]
    assert found == [
        (("fito.a",), False),
        (("fito.e",), False),
        (("fito.c",), True),
        (("fito.pkg.d",), True),
    ]


def test_no_import_cycle() -> None:
    found = [c for c in cycles(import_graph()) if not _exempt_cycle(c)]
    assert not found, (
        "modules that import each other (imports inside functions counted), one cycle a line:\n"
        + "\n".join("  " + ", ".join(c) for c in found)
    )


def test_every_lazy_import_says_why() -> None:
    unmarked = [
        f"{MODULES[imp.module].relative_to(PACKAGE.parent)}:{imp.line}: {imp.text.strip()}"
        for imp in IMPORTS
        if imp.in_function
        and not _within(imp.module, MARKER_EXEMPT_PACKAGES)
        and MARKER not in imp.text
        and not all((imp.module, t) in KNOWN_LAZY for t in imp.targets or ("",))
    ]
    assert not unmarked, (
        "imports inside functions without `# lazy-import: <reason>` (move them to module "
        "level unless start-up time needs them there):\n" + "\n".join(unmarked)
    )


def test_lazy_import_markers_give_a_reason_and_sit_inside_functions() -> None:
    wrong = [
        f"{MODULES[imp.module].relative_to(PACKAGE.parent)}:{imp.line}: {imp.text.strip()}"
        for imp in IMPORTS
        if MARKER in imp.text and (not imp.in_function or not imp.text.split(MARKER, 1)[1].strip())
    ]
    assert not wrong, "lazy-import markers at module level or without a reason:\n" + "\n".join(
        wrong
    )


def test_known_lazy_imports_are_still_there() -> None:
    lazy = {(imp.module, t) for imp in IMPORTS if imp.in_function for t in imp.targets}
    assert not set(KNOWN_LAZY) - lazy, "stale entries in KNOWN_LAZY"
