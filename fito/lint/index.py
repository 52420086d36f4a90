"""One pass over a module before the walk: imports, functions, classes, and which of them
save, so that the walker can inline the helpers that matter and skip the rest."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from fito.lint import apis

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def dotted(node: ast.expr) -> str | None:
    """`a.b.c` for names and attribute chains; `x[0].y` reads as `x.y`; else None."""
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Name):
            parts.append(node.id)
            return ".".join(reversed(parts))
        else:
            return None


@dataclass(slots=True)
class ClassInfo:
    name: str
    methods: dict[str, FunctionNode]
    bases: tuple[str, ...]


@dataclass(slots=True)
class ModuleIndex:
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionNode] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    owner: dict[int, str] = field(default_factory=dict)  # id(method) -> class name
    relevant: set[int] = field(default_factory=set)  # ids of functions worth inlining
    saving: set[int] = field(default_factory=set)  # ids of functions that save
    callers: dict[str, set[int]] = field(default_factory=dict)  # name -> calling scopes
    is_training_code: bool = False
    path: str = ""  # the file (for calls into other modules of the project)
    #: id(function) -> the functions of this file it calls or nests (the call graph)
    callees: dict[int, set[int]] = field(default_factory=dict)
    #: id(function) -> the import-resolved names of its calls into other modules
    external: dict[int, list[str]] = field(default_factory=dict)
    #: id(function) -> the names it calls (`save` for `self.ckpt.save(...)`)
    called: dict[int, set[str]] = field(default_factory=dict)

    def qualify(self, node: ast.expr) -> str | None:
        d = dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        if head in self.imports:
            return self.imports[head] + ("." + rest if rest else "")
        return d

    def called_by_others(self, fn: FunctionNode) -> bool:
        """Some other function of the file, or its module code, calls `fn` by name."""
        return bool(self.callers.get(fn.name, set()) - {id(fn)})

    def all_functions(self) -> list[FunctionNode]:
        out = list(self.functions.values())
        for c in self.classes.values():
            out.extend(c.methods.values())
        return out

    def method(self, cls: str | None, name: str) -> FunctionNode | None:
        """`name` on class `cls` or on one of its bases defined in this file."""
        seen = 0
        while cls is not None and cls in self.classes and seen < 8:
            info = self.classes[cls]
            if name in info.methods:
                return info.methods[name]
            cls = next((b for b in info.bases if b in self.classes), None)
            seen += 1
        return None


def build_index(tree: ast.Module, path: str = "") -> ModuleIndex:
    index = ModuleIndex(tree, path=path)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            index.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            methods = {
                m.name: m
                for m in node.body
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            bases = tuple(b for b in (dotted(x) for x in node.bases) if b)
            index.classes[node.name] = ClassInfo(node.name, methods, bases)
            for m in methods.values():
                index.owner[id(m)] = node.name
    _mark(index, _scan(index))
    return index


@dataclass(slots=True)
class _Scan:
    functions: list[FunctionNode] = field(default_factory=list)  # nested ones included
    calls_of: dict[int, list[ast.Call]] = field(default_factory=dict)  # direct calls only
    nested: dict[int, list[int]] = field(default_factory=dict)  # outer -> inner functions


def _scan(index: ModuleIndex) -> _Scan:
    """One pass over the tree: imports, every function, the calls made directly in each, and
    which top-level scope (a function, a method, the module code) calls which name."""
    scan = _Scan()
    todo: list[tuple[ast.AST, FunctionNode | None, int]] = [(index.tree, None, 0)]
    while todo:
        node, fn, scope = todo.pop()
        for child in _children(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scan.functions.append(child)
                scan.calls_of[id(child)] = []
                scan.nested[id(child)] = []
                if fn is not None:
                    scan.nested[id(fn)].append(id(child))
                todo.append((child, child, scope if fn is not None else id(child)))
                continue
            if isinstance(child, ast.Call):
                if fn is not None:
                    scan.calls_of[id(fn)].append(child)
                name = _name(child.func)
                if name is not None:
                    index.callers.setdefault(name, set()).add(scope)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                _add_import(index, child)
            todo.append((child, fn, scope))
    return scan


_LEAVES = (
    ast.Name,
    ast.Constant,
    ast.expr_context,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.boolop,
    ast.alias,
    ast.arg,
)


def _children(node: ast.AST) -> list[ast.AST]:
    """The child nodes that can hold a call, a function or an import (leaves left out)."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST) and not isinstance(v, _LEAVES))
        elif isinstance(value, ast.AST) and not isinstance(value, _LEAVES):
            out.append(value)
    return out


def _add_import(index: ModuleIndex, node: ast.Import | ast.ImportFrom) -> None:
    if isinstance(node, ast.Import):
        for a in node.names:
            index.imports[a.asname or a.name.split(".")[0]] = (
                a.name if a.asname else a.name.split(".")[0]
            )
            index.is_training_code |= apis.is_training_import(a.name)
    elif node.level == 0 and node.module:
        index.is_training_code |= apis.is_training_import(node.module)
        for a in node.names:
            index.imports[a.asname or a.name] = f"{node.module}.{a.name}"
    elif node.level > 0:  # `from .utils import save`: resolved against the file's package
        base = "." * node.level + (node.module + "." if node.module else "")
        for a in node.names:
            index.imports[a.asname or a.name] = base + a.name


def _name(func: ast.expr) -> str | None:
    return (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else None
    )


def _mark(index: ModuleIndex, scan: _Scan) -> None:
    """Which functions hold a relevant call, directly, in a nested function or through a
    helper of the file (a fixpoint over the call graph)."""
    by_name: dict[str, list[FunctionNode]] = {}
    for f in scan.functions:
        by_name.setdefault(f.name, []).append(f)
    callees = index.callees
    for f in scan.functions:
        out = set(scan.nested[id(f)])
        called = index.called.setdefault(id(f), set())
        external: list[str] = []
        for c in scan.calls_of[id(f)]:
            d = dotted(c.func)
            if d is not None and d.partition(".")[0] in index.imports:
                external.append(index.imports[d.partition(".")[0]] + d[len(d.partition(".")[0]) :])
            tag = _tag(index, c)
            if tag in apis.RELEVANT:
                index.relevant.add(id(f))
            if tag in apis.SAVING:
                index.saving.add(id(f))
            name = _name(c.func)
            if name is not None:
                called.add(name)
                out.update(id(g) for g in by_name.get(name, ()) if g is not f)
        callees[id(f)] = out
        if external:
            index.external[id(f)] = external
    propagate(index)


def propagate(index: ModuleIndex) -> None:
    """Close `relevant` and `saving` over the file's call graph (a fixpoint)."""
    changed = True
    while changed:
        changed = False
        for f, out in index.callees.items():
            for target in (index.relevant, index.saving):
                if f not in target and out & target:
                    target.add(f)
                    changed = True


def _tag(index: ModuleIndex, call: ast.Call) -> str | None:
    func = call.func
    attr = (
        func.attr
        if isinstance(func, ast.Attribute)
        else func.id
        if isinstance(func, ast.Name)
        else None
    )
    receiver = dotted(func.value) if isinstance(func, ast.Attribute) else None
    return apis.classify(index.qualify(func), attr, len(call.args), receiver)
