"""Generated code, loaded so that tracebacks and debuggers show its source.

Every unit of generated Python (a group's successor functions, a vectorised group, an entry
finder, a predicate) is compiled under a name of its own, `<fito-group mode=3 cand=1 #17>`,
and its text is registered with `linecache`, so `traceback` and `pdb` print its lines. With
`FITO_DUMP_CODE=DIR` in the environment each unit is also written to DIR as a file named
after the unit and compiled under that file's path, so a debugger can open it; a unit that
cannot be written is loaded as it would be without the variable (docs/debugging.md).
Loading happens once per unit, never per state.
"""

from __future__ import annotations

import itertools
import linecache
import os
import re
import threading
from collections import deque
from typing import Any

from fito import budget

DUMP_VARIABLE = "FITO_DUMP_CODE"
MAX_REGISTERED = 10_000  # units whose text linecache keeps; the oldest are dropped first

_numbers = itertools.count(1)
_deep_numbers = itertools.count(1)
_deferred: dict[str, str] = {}  # a deferred function's name -> its source
_DEEP_CALL = re.compile(r"(?<!def )\b(_deep\d+)\(")  # a call, not the definition
_registered: deque[str] = deque()
_lock = threading.Lock()
_PID = os.getpid()  # the process that imported this module: forked workers name files apart


def defer(body: str, var: str) -> str:
    """A call `_deepN(var)` of a function with this body (over the one argument var), which
    `load` defines in the namespace of every unit that calls it: how an expression too deeply
    nested for Python's parser is split."""
    name = f"_deep{next(_deep_numbers)}"
    with _lock:
        _deferred[name] = f"def {name}({var}):\n    {body}\n"
    return f"{name}({var})"


def load(source: str, title: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Compile and run generated source in namespace as the unit `<title #n>` (the deferred
    functions it calls first, each a unit of its own); namespace. The command's deadline and
    memory (fito.budget) are looked at before each unit: compile() cannot be interrupted, so
    callers keep units small."""
    for name in _DEEP_CALL.findall(source):
        if name not in namespace:
            with _lock:
                helper = _deferred.get(name)
            if helper is not None:
                load(helper, title + " part", namespace)
    budget.check()
    number = next(_numbers)
    name = f"<{title} #{number}>"
    if not source.endswith("\n"):
        source += "\n"
    filename = _dump(source, title, number) or name
    code = compile(source, filename, "exec", dont_inherit=True)
    _register(filename, source)
    exec(code, namespace)  # noqa: S102 - fito's own generated code
    return namespace


def dump_path(title: str, number: int, folder: str) -> str:
    """The file a unit is dumped to: its title made safe for a file name, and its number."""
    stem = re.sub(r"[^\w=.-]+", "_", title).strip("_.")[:100] or "fito"
    pid = os.getpid()
    suffix = f"_{number}" if pid == _PID else f"_{number}_p{pid}"
    return os.path.abspath(os.path.join(folder, stem + suffix + ".py"))


def _dump(source: str, title: str, number: int) -> str | None:
    """The path the unit was written to, or None (no dump asked for, or it failed)."""
    folder = os.environ.get(DUMP_VARIABLE)
    if not folder:
        return None
    path = dump_path(title, number, folder)
    try:
        os.makedirs(folder, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
    except (OSError, ValueError):  # a dump is a debugging aid: it never fails a check
        return None
    return path


def _register(filename: str, source: str) -> None:
    """The unit's text in linecache (mtime None: `linecache.checkcache` keeps it)."""
    lines = source.splitlines(keepends=True)
    with _lock:
        linecache.cache[filename] = (len(source), None, lines, filename)
        _registered.append(filename)
        while len(_registered) > MAX_REGISTERED:
            linecache.cache.pop(_registered.popleft(), None)
