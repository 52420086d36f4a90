"""fito: model checking, FITO type checking and proof certificates for checkpoint protocols.

The public API is the names below (docs/api.md); everything else is internal.

    >>> import fito
    >>> report = fito.check_file("specs/checkpoint_naive.fito")
    >>> [(v.line, v.verdict) for v in report.verdicts]
    [(24, 'fails'), (25, 'holds'), (26, 'holds')]

The names are loaded on first use (PEP 562), so `import fito` costs nothing and the
command line's start-up and the proof kernel's standard-library-only imports are kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fito import display

__version__ = "0.1.0"

__all__ = [
    "CheckOptions",
    "Diagnostic",
    "FileReport",
    "FitoError",
    "Span",
    "Verdict",
    "__version__",
    "check_file",
    "check_text",
]

# name -> the module that is its one home
_HOMES = {
    "CheckOptions": "fito.check.options",
    "Diagnostic": "fito.diagnostics",
    "FileReport": "fito.outcome",
    "FitoError": "fito.errors",
    "Span": "fito.diagnostics",
    "Verdict": "fito.check.result",
    "check_file": "fito.pipeline",
    "check_text": "fito.pipeline",
}

# fito is the composition root: the values' `_repr_html_` find their renderers here
display.provide("fito.render.page")

if TYPE_CHECKING:
    from fito.check.options import CheckOptions
    from fito.check.result import Verdict
    from fito.diagnostics import Diagnostic, Span
    from fito.errors import FitoError
    from fito.outcome import FileReport
    from fito.pipeline import check_file, check_text


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'fito' has no attribute {name!r}")
    import importlib  # lazy-import: `import fito` stays free (start-up, proof kernel)

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
