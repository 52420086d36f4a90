"""The code of generated dataclass methods, kept between runs of the command line.

Creating a dataclass compiles the source text of each method it generates (`__init__`,
`__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`). fito defines about 150
frozen dataclasses, and `fito check` on a one-line spec spent about 0.13 s, nearly half of
its own time, in those `compile` calls: the same texts, compiled again on every run.

`install()` makes `dataclasses` take the code object of each text from a table kept in the
user's cache directory (`marshal`, as `.pyc` files are; the Python version in the
file name), keyed by the exact source text. A text not in the table is compiled as
`dataclasses` itself would compile it and added, so an entry can never be stale: the table
only spares recompiling the same text. It is written back at exit when a run added to it.
Only the command line installs it (`python -m fito`, the `fito` script); importing fito as a
library leaves `dataclasses` as it is.
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import os
import sys
from types import CodeType
from typing import Any, Union

PathLike = Union[str, "os.PathLike[str]"]

#: A table grown past this many texts (many edited versions of fito) keeps only a run's own.
MAX_ENTRIES = 20_000


class _Table:
    """The texts and their code: loaded once, written back when a run compiled a new text."""

    def __init__(self, path: PathLike | None) -> None:
        self.path = path
        self.code: dict[str, CodeType] = load(path) if path is not None else {}
        self.used: set[str] = set()
        self.added = 0

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        """`exec` as `dataclasses` calls it, with the compiled text taken from the table."""
        if not isinstance(source, str):
            exec(source, globals, locals)  # noqa: S102 - as dataclasses would
            return
        code = self.code.get(source)
        if code is None:  # compiled as exec(source) does: "<string>", no inherited flags
            code = self.code[source] = compile(source, "<string>", "exec", dont_inherit=True)
            self.added += 1
        self.used.add(source)
        exec(code, globals, locals)  # noqa: S102 - the code of dataclasses' own text

    def save(self) -> None:
        """Write the table back (atomically) if this run added to it; never fails."""
        if not self.added or self.path is None:
            return
        keep = (
            self.code
            if len(self.code) <= MAX_ENTRIES
            else {s: c for s, c in self.code.items() if s in self.used}
        )
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), mode=0o700, exist_ok=True)
            tmp = f"{os.fspath(self.path)}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(marshal.dumps(keep))
            os.replace(tmp, self.path)
        except (OSError, ValueError):
            return
        self.added = 0


_installed: list[_Table] = []


def default_path() -> str | None:
    """`$XDG_CACHE_HOME/fito` (else `~/.cache/fito`), one file per bytecode version. (os.path,
    not pathlib: pathlib is not imported otherwise on the way to a verdict.)"""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not base:
        home = os.path.expanduser("~")
        if home == "~":  # no home directory
            return None
        base = os.path.join(home, ".cache")
    version = f"{sys.implementation.cache_tag}-{sys.hexversion:x}-O{sys.flags.optimize}"
    name = f"dataclass-methods.{version}.marshal"
    return os.path.join(base, "fito", name)


def load(path: PathLike) -> dict[str, CodeType]:
    """The table stored in `path`; empty when missing, unreadable or not such a table."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        table = marshal.loads(data)  # marshal.load(f) reads object by object: 10x slower
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not isinstance(table, dict) or not all(
        isinstance(s, str) and isinstance(c, CodeType) for s, c in table.items()
    ):
        return {}
    return table


def install(path: PathLike | None = None) -> None:
    """Route the `exec` of `dataclasses` through the table at `path` (default_path()); once."""
    if _installed:
        return
    table = _Table(path if path is not None else default_path())
    _installed.append(table)
    dataclasses.exec = table.exec  # type: ignore[attr-defined] # shadows the builtin there
    atexit.register(table.save)


def uninstall() -> None:
    """Undo install() (tests), writing the table back first."""
    if not _installed:
        return
    table = _installed.pop()
    atexit.unregister(table.save)
    table.save()
    del dataclasses.exec  # type: ignore[attr-defined]
