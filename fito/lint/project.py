"""A project read as a whole: calls into functions defined in other modules of the same tree.

`fito lint DIR` (or several files) lints each file with one `Project` shared by all of them.
When a walk meets a call whose name comes from an import (`utils.save_checkpoint(...)`,
`from .ckpt import find_latest`), the project finds the module in the tree, parses it once
(a cache of module indexes shared by the whole run), and hands the function to the walker,
which inlines it like a helper of the file (bounded by the walker's depth). Which functions
of a module save, load or publish is closed over the calls between modules too, so a
`train()` that only calls `utils.save_checkpoint` twice is walked, and its two calls count as
the two saves they perform.

Modules are looked up, for a file `F`, under `F`'s directory (scripts that `import utils`),
under the root of the package `F` belongs to (the first directory up without an
`__init__.py`), and under every directory given on the command line; relative imports are
resolved against `F`'s package. Nothing outside these directories is read.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field

from fito import budget
from fito.lint.index import FunctionNode, ModuleIndex, build_index, propagate
from fito.source import DEFAULT_MAX_BYTES, Source, read_source

#: how many modules deep the relevance of a call is followed (the walker has its own bound)
MAX_MODULE_DEPTH = 6
#: modules parsed per run at most beyond the files given (a bound on what a walk can pull in)
MAX_MODULES = 2_000
#: a function of another module is followed only if it is a helper of at most this many
#: statements (nested ones counted): save and load wrappers, "latest" finders, small
#: checkpoint managers. A framework's own 300-line `load_checkpoint` is not inlined into
#: every script that calls it; it is linted in its own file, as an entry point there.
MAX_HELPER_STATEMENTS = 60


@dataclass(frozen=True, slots=True)
class Callee:
    """A function of another module: the node, its class (for methods) and its module."""

    fn: FunctionNode | None  # None: the class itself (a constructor call)
    cls: str | None
    index: ModuleIndex


@dataclass(slots=True)
class Project:
    roots: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    _indexes: dict[str, ModuleIndex | None] = field(default_factory=dict)  # by real path
    _sources: dict[str, Source] = field(default_factory=dict)
    _files: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _resolved: dict[tuple[str, str], Callee | None] = field(default_factory=dict)
    _closing: set[str] = field(default_factory=set)
    _sizes: dict[int, int] = field(default_factory=dict)
    parsed: int = 0  # modules parsed (the cache's size, for tests and the bench)
    #: ids of the functions some other module of the project calls: they are walked where
    #: they are called (with their arguments), not as entry points of their own file
    called_elsewhere: set[int] = field(default_factory=set)

    def prime(self, files: list[str]) -> None:
        """Parse every file of the run once and note which functions other modules call
        (from a function that is itself walked: two functions of two modules that only call
        each other stay entry points of their files)."""
        indexes = [i for i in (self.index(f) for f in files) if i is not None]
        edges: dict[int, set[int]] = {}
        for index in indexes:
            used = set().union(*index.called.values()) if index.called else set()
            for fid, names in index.external.items():  # (an instance's methods are called
                for name in names:  # anywhere in the module: `self.ckpt.save(...)`)
                    callee = self.resolve(index, name)
                    if callee is None:
                        continue
                    out = edges.setdefault(fid, set())
                    if callee.fn is not None:
                        out.add(id(callee.fn))
                    elif callee.cls is not None:
                        for m in callee.index.classes[callee.cls].methods.values():
                            if (m.name in used or m.name == "__init__") and self.inlinable(m):
                                out.add(id(m))
        called = set().union(*edges.values()) if edges else set()
        todo = [f for f in edges if f not in called]  # callers nobody else calls: walked
        reached: set[int] = set()
        while todo:
            for g in edges.get(todo.pop(), ()):
                if g not in reached:
                    reached.add(g)
                    todo.append(g)
        self.called_elsewhere |= reached

    @classmethod
    def of(cls, paths: list[str], max_bytes: int = DEFAULT_MAX_BYTES) -> Project:
        roots = tuple(os.path.realpath(p) for p in paths if os.path.isdir(p))
        return cls(roots, max_bytes)

    # ------------------------------------------------------------------ the cache
    def source(self, path: str) -> Source | None:
        real = os.path.realpath(path)
        if real not in self._sources:
            src = read_source(path, self.max_bytes)
            if not isinstance(src, Source):
                return None
            self._sources[real] = src
        return self._sources[real]

    def cached(self, path: str) -> ModuleIndex | None:
        """The module's index if a walk already parsed it (then the file is not parsed again)."""
        return self._indexes.get(os.path.realpath(path))

    def index(self, path: str, tree: ast.Module | None = None) -> ModuleIndex | None:
        """The module's index (parsed once per run), its relevance closed over the project."""
        real = os.path.realpath(path)
        if real in self._indexes:
            return self._indexes[real]
        if tree is None:
            if self.parsed >= MAX_MODULES:
                return None
            src = self.source(path)
            if src is None:
                return None
            try:
                tree = parse(src.text, path)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._indexes[real] = None
                return None
            self.parsed += 1
        index = build_index(tree, real)
        self._indexes[real] = index
        self._close(index)
        return index

    def _close(self, index: ModuleIndex) -> None:
        """Mark the functions whose calls into other modules save, load or publish."""
        if (
            not index.external
            or index.path in self._closing
            or len(self._closing) >= MAX_MODULE_DEPTH
        ):
            return
        self._closing.add(index.path)
        try:
            before = -1
            while before != len(index.relevant) + len(index.saving):
                before = len(index.relevant) + len(index.saving)
                relevant_methods: set[str] = set()  # of the other modules' classes used
                saving_methods: set[str] = set()
                for fid, names in index.external.items():
                    for name in names:
                        callee = self.resolve(index, name)
                        if callee is None:
                            continue
                        if callee.fn is None and callee.cls is not None:
                            info = callee.index.classes[callee.cls]
                            for m in info.methods.values():
                                if not self.inlinable(m):
                                    continue
                                if id(m) in callee.index.relevant:
                                    relevant_methods.add(m.name)
                                if id(m) in callee.index.saving:
                                    saving_methods.add(m.name)
                            continue
                        if id(callee.fn) in callee.index.relevant:
                            index.relevant.add(fid)
                        if id(callee.fn) in callee.index.saving:
                            index.saving.add(fid)
                relevant_methods.discard("__init__")
                saving_methods.discard("__init__")
                for fid, called in index.called.items():
                    if called & relevant_methods:
                        index.relevant.add(fid)
                    if called & saving_methods:
                        index.saving.add(fid)
                propagate(index)
        finally:
            self._closing.discard(index.path)

    # ------------------------------------------------------------------ resolution
    def resolve(self, index: ModuleIndex, qual: str) -> Callee | None:
        """The function `qual` (an import-resolved name: `pkg.utils.save`, `.ckpt.find`,
        `utils.Saver.save`) names, if a module of the project defines it."""
        key = (index.path, qual)
        if key in self._resolved:
            return self._resolved[key]
        self._resolved[key] = None  # a cycle resolves to nothing while it is being resolved
        found = self._resolve(index, qual)
        self._resolved[key] = found
        return found

    def inlinable(self, fn: FunctionNode) -> bool:
        """Small enough to be followed from another module (MAX_HELPER_STATEMENTS)."""
        key = id(fn)
        if key not in self._sizes:
            self._sizes[key] = sum(1 for n in ast.walk(fn) if isinstance(n, ast.stmt))
        return self._sizes[key] <= MAX_HELPER_STATEMENTS

    def _resolve(self, index: ModuleIndex, qual: str) -> Callee | None:
        level = len(qual) - len(qual.lstrip("."))
        parts = qual.lstrip(".").split(".")
        for cut in range(len(parts) - 1, -1 if level else 0, -1):
            path = self.module_file(index.path, level, parts[:cut])
            if path is None:
                continue
            if os.path.realpath(path) == index.path:
                return None
            target = self.index(path)
            if target is None:
                return None
            rest = parts[cut:]
            if len(rest) == 1 and rest[0] in target.functions:
                fn = target.functions[rest[0]]
                return Callee(fn, None, target) if self.inlinable(fn) else None
            if len(rest) == 1 and rest[0] in target.classes:
                return Callee(None, rest[0], target)
            if len(rest) == 2 and rest[0] in target.classes:
                method = target.method(rest[0], rest[1])
                if method is None or not self.inlinable(method):
                    return None
                return Callee(method, rest[0], target)
            if len(rest) == 1 and rest[0] in target.imports:  # re-exported: `from .a import f`
                if len(self._closing) < MAX_MODULE_DEPTH:
                    return self.resolve(target, target.imports[rest[0]])
            return None
        return None

    def module_file(self, importer: str, level: int, parts: list[str]) -> str | None:
        """The file of module `parts` imported from `importer` (`level` leading dots)."""
        key = (importer if level else os.path.dirname(importer), "." * level + ".".join(parts))
        if key in self._files:
            return self._files[key]
        found: str | None = None
        if level:
            base = os.path.dirname(importer)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            found = _module_in(base, parts)
        else:
            for base in self._bases(importer):
                found = _module_in(base, parts)
                if found is not None:
                    break
        self._files[key] = found
        return found

    def _bases(self, importer: str) -> list[str]:
        here = os.path.dirname(importer)
        top = here
        while os.path.isfile(os.path.join(top, "__init__.py")) and os.path.dirname(top) != top:
            top = os.path.dirname(top)
        out = [here, top, *self.roots]
        return list(dict.fromkeys(out))


def _module_in(base: str, parts: list[str]) -> str | None:
    path = os.path.join(base, *parts)
    if os.path.isfile(path + ".py"):
        return path + ".py"
    init = os.path.join(path, "__init__.py")
    return init if os.path.isfile(init) else None


# What CPython's parser holds at its peak, per byte of source: about 290 for a file of
# 100,000 one-line calls (a 1.9 MB file took 546 MB). ast.parse is one C call that no
# deadline or memory check interrupts, so the memory it would need is asked for first.
PARSE_BYTES_PER_BYTE = 300


def parse(text: str, path: str) -> ast.Module:
    """ast.parse, refused (BudgetExceeded) when its peak would not fit the memory budget."""
    budget.current().reserve(len(text) * PARSE_BYTES_PER_BYTE, f"parsing {path}")
    return ast.parse(text, filename=path)
