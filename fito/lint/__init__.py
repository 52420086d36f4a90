"""`fito lint`: the FITO mistakes of paper A (torn, mixed-epoch and unawaited checkpoints)
found in Python training scripts. docs/lint.md documents the codes and how code is read; the
public names are `__all__` below (docs/api.md): `lint_path(path, LintOptions())` gives a
`LintReport` whose `report` is a `fito.FileReport` of diagnostics."""

from __future__ import annotations

from fito.lint.run import (
    LintOptions,
    LintReport,
    discover,
    exit_status,
    lint_path,
    lint_paths,
    lint_source,
)

__all__ = [
    "LintOptions",
    "LintReport",
    "discover",
    "exit_status",
    "lint_path",
    "lint_paths",
    "lint_source",
]
