"""Models the model checker refuses, with a diagnostic rather than a traceback or a blow-up.

Two kinds: an expansion too large to make (a replicated operator, a quantifier or an input
over more than `MAX_EXPANSION` values: S002, naming the range), and the rare shapes of
process variables that the compiled state cannot represent canonically (S003;
docs/semantics.md, "How the engine keeps the store").
"""

from __future__ import annotations

from fito.diagnostics import NO_SPAN, Diagnostic, Span, error
from fito.errors import FitoError
from fito.lang.resolve.model import ValueType, show_type, size

MAX_EXPANSION = 100_000  # values one replicated operator, quantifier or input may range over


class NotSupported(FitoError):
    """A model the checker refuses (a user-facing error carrying its diagnostic)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def refuse(message: str, span: Span = NO_SPAN, hint: str | None = None) -> NotSupported:
    return NotSupported(error("S003", message, span, hint=hint))


def check_expansion(count: int, what: str, span: Span = NO_SPAN) -> None:
    """Refuse (S002) an expansion over more than MAX_EXPANSION values, before making it."""
    if count > MAX_EXPANSION:
        raise NotSupported(
            error(
                "S002",
                f"{what} has {count:,} values, more than the {MAX_EXPANSION:,} the model "
                "checker expands",
                span,
                hint="narrow the type to the values the model needs",
            )
        )


def values_of(t: ValueType, what: str, span: Span = NO_SPAN) -> tuple[int, ...]:
    """The values of a type, refused when there are too many to list."""
    n = size(t)
    if n is None:
        raise NotSupported(error("S002", f"{what} ranges over Int, which is unbounded", span))
    check_expansion(n, f"{what} over {show_type(t)}", span)
    return t.values()
