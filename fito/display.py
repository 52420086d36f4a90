"""Rich display of fito's values in notebooks, without a cycle of imports.

`FileReport`, `Verdict` and `Trace` have `_repr_html_`, but the renderers (`fito.render`)
import those values, so the values cannot import the renderers. Instead a renderer module
registers one function per type (`register_html`), and the composition root (`fito`'s
`__init__`) names the module that provides them (`provide`); it is imported on the first
`html` call, so no command that never shows HTML pays for it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from html import escape
from typing import Any

_RENDERERS: dict[type, Callable[[Any], str]] = {}
_PROVIDERS: list[str] = []


def register_html(kind: type, render: Callable[[Any], str]) -> None:
    """Show values of `kind` with `render` in notebooks."""
    _RENDERERS[kind] = render


def provide(module: str) -> None:
    """Name a module whose import registers renderers (imported on the first `html`)."""
    if module not in _PROVIDERS:
        _PROVIDERS.append(module)


def html(value: object) -> str:
    """The HTML of a value: its registered renderer's, else its repr in a `<pre>`."""
    while _PROVIDERS and type(value) not in _RENDERERS:
        importlib.import_module(_PROVIDERS.pop(0))
    render = _RENDERERS.get(type(value))
    return render(value) if render is not None else f"<pre>{escape(repr(value))}</pre>"
