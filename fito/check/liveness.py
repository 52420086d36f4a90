"""`|= eventually e` under weak fairness (LANGUAGE.md: an extension)."""
from __future__ import annotations

from fito.check.explore import Limits
from fito.check.result import UNKNOWN, Verdict
from fito.lang import ast as A
from fito.semantics.compiled import Compiled


def check_eventually(c: Compiled, a: A.AssertDecl, text: str, limits: Limits) -> Verdict:
    return Verdict(text, a.span.line, UNKNOWN, reason="`eventually` is not supported yet")
