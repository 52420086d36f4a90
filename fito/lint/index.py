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
    owner: dict[int, str] = field(default_factory=dict)        # id(method) -> class name
    relevant: set[int] = field(default_factory=set)            # ids of functions worth inlining
    saving: set[int] = field(default_factory=set)              # ids of functions that write
    callers: dict[str, set[int]] = field(default_factory=dict)  # name -> ids of calling scopes
    is_training_code: bool = False

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


def build_index(tree: ast.Module) -> ModuleIndex:
    index = ModuleIndex(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                index.imports[a.asname or a.name.split(".")[0]] = \
                    a.name if a.asname else a.name.split(".")[0]
                index.is_training_code |= apis.is_training_import(a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            index.is_training_code |= apis.is_training_import(node.module)
            for a in node.names:
                index.imports[a.asname or a.name] = f"{node.module}.{a.name}"
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            index.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            methods = {m.name: m for m in node.body
                       if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
            bases = tuple(b for b in (dotted(x) for x in node.bases) if b)
            index.classes[node.name] = ClassInfo(node.name, methods, bases)
            for m in methods.values():
                index.owner[id(m)] = node.name
    _mark(index)
    return index


def _calls(fn: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(fn) if isinstance(n, ast.Call)]


def _mark(index: ModuleIndex) -> None:
    """Which functions hold a relevant call, directly or through a helper (a fixpoint);
    nested functions included, as the walker inlines them where they are called."""
    top = index.all_functions()
    ids = {id(f) for f in top}
    functions = top + [n for n in ast.walk(index.tree)
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(n) not in ids]
    calls_of = {id(f): _calls(f) for f in functions}
    by_name: dict[str, list[FunctionNode]] = {}
    for f in functions:
        by_name.setdefault(f.name, []).append(f)
    callees: dict[int, set[int]] = {}
    for f in functions:
        out: set[int] = set()
        for c in calls_of[id(f)]:
            tag = _tag(index, c)
            if tag in apis.RELEVANT:
                index.relevant.add(id(f))
            if tag in apis.WRITING:
                index.saving.add(id(f))
            name = c.func.id if isinstance(c.func, ast.Name) else \
                c.func.attr if isinstance(c.func, ast.Attribute) else None
            if name is not None:
                out.update(id(g) for g in by_name.get(name, ()) if g is not f)
        callees[id(f)] = out
    module_code = [s for s in index.tree.body
                   if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    scopes = [(id(f), calls_of[id(f)]) for f in top]
    scopes.append((0, [c for s in module_code for c in _calls(s)]))
    for scope, calls in scopes:
        for c in calls:
            f = c.func
            name = f.id if isinstance(f, ast.Name) else \
                f.attr if isinstance(f, ast.Attribute) else None
            if name is not None:
                index.callers.setdefault(name, set()).add(scope)
    changed = True
    while changed:
        changed = False
        for f in functions:
            for target, source in ((index.relevant, callees[id(f)]), (index.saving, callees[id(f)])):
                if id(f) not in target and source & target:
                    target.add(id(f))
                    changed = True


def _tag(index: ModuleIndex, call: ast.Call) -> str | None:
    func = call.func
    attr = func.attr if isinstance(func, ast.Attribute) else \
        func.id if isinstance(func, ast.Name) else None
    receiver = dotted(func.value) if isinstance(func, ast.Attribute) else None
    return apis.classify(index.qualify(func), attr, len(call.args), receiver)
