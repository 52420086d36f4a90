"""`[tool.fito.lint]` in `pyproject.toml`: the settings a project keeps next to its code.

```toml
[tool.fito.lint]
select = ["FITOL0"]            # codes or prefixes to report (all default-on codes when absent)
extend-select = ["FITOL050"]   # added to select (a code off by default, named)
ignore = ["FITOL004"]          # never reported
exclude = ["scripts/legacy/*"] # files not linted (globs, relative to the pyproject's folder)

[tool.fito.lint.per-file-ignores]
"tools/*.py" = ["FITOL003"]
```

The file is the nearest `pyproject.toml` at or above the first path given (as ruff finds
its configuration), or the one `--config` names; `--isolated` reads none. Command-line
`--select` replaces the file's `select` (and `extend-select`), `--ignore` adds to its
`ignore`. An unknown key, a code that names no FITOL code, or a file that is not TOML is a
usage error (exit 2), never a traceback.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from dataclasses import dataclass

from fito.errorcodes import CODES

KEYS = frozenset(("select", "extend-select", "ignore", "exclude", "per-file-ignores"))


class ConfigError(Exception):
    """A `[tool.fito.lint]` table that cannot be used, with the reason."""


@dataclass(frozen=True, slots=True)
class LintConfig:
    path: str | None = None  # the pyproject.toml read, if any
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def root(self) -> str:
        return os.path.dirname(self.path) if self.path else os.getcwd()


def find(paths: list[str]) -> str | None:
    """The nearest pyproject.toml with a [tool.fito.lint] table, at or above paths[0]."""
    if not paths:
        return None
    here = os.path.abspath(paths[0])
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    while True:
        candidate = os.path.join(here, "pyproject.toml")
        if os.path.isfile(candidate) and _table(candidate) is not None:
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _table(path: str) -> dict[str, object] | None:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    tool = data.get("tool")
    fito = tool.get("fito") if isinstance(tool, dict) else None
    table = fito.get("lint") if isinstance(fito, dict) else None
    return table if isinstance(table, dict) else None


def load(path: str) -> LintConfig:
    """Read and check `[tool.fito.lint]` of `path`."""
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    tool = data.get("tool", {})
    fito = tool.get("fito", {}) if isinstance(tool, dict) else {}
    table = fito.get("lint", {}) if isinstance(fito, dict) else {}
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.fito.lint] must be a table")
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(
            f"{path}: unknown key {unknown[0]!r} in [tool.fito.lint] "
            f"(known: {', '.join(sorted(KEYS))})"
        )
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{path}: per-file-ignores must be a table of glob = [codes]")
    return LintConfig(
        path=path,
        select=codes(table.get("select", []), f"{path}: select"),
        extend_select=codes(table.get("extend-select", []), f"{path}: extend-select"),
        ignore=codes(table.get("ignore", []), f"{path}: ignore"),
        exclude=_strings(table.get("exclude", []), f"{path}: exclude"),
        per_file_ignores=tuple(
            (pattern, codes(value, f"{path}: per-file-ignores {pattern!r}"))
            for pattern, value in sorted(per_file.items())
        ),
    )


def codes(value: object, where: str) -> tuple[str, ...]:
    """Upper-cased codes or prefixes, each naming at least one FITOL code."""
    out = tuple(c.strip().upper() for c in _strings(value, where) if c.strip())
    lint_codes = [c for c in CODES if c.startswith("FITOL")]
    for c in out:
        if not any(code.startswith(c) for code in lint_codes) or not c.startswith("FITOL"):
            raise ConfigError(
                f"{where}: {c!r} names no lint code (codes are FITOL000-FITOL008 and "
                "FITOL050-FITOL054)"
            )
    return out


def _strings(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of strings")
    return tuple(value)


def excluded(path: str, config: LintConfig) -> bool:
    """The file matches one of the `exclude` globs (relative to the configuration's folder)."""
    rel = _relative(path, config.root)
    return any(fnmatch.fnmatch(rel, pattern) for pattern in config.exclude)


def ignored_for(path: str, config: LintConfig) -> tuple[str, ...]:
    """The codes `per-file-ignores` silences in this file."""
    rel = _relative(path, config.root)
    return tuple(
        c for pattern, cs in config.per_file_ignores if fnmatch.fnmatch(rel, pattern) for c in cs
    )


def _relative(path: str, root: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), root)
    return rel.replace(os.sep, "/")
