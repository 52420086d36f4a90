"""The language's integer arithmetic: what `/` and `%` mean (LANGUAGE.md, "Expressions").

Values are Python ints. `/` and `%` round toward negative infinity, as in Python's `//` and
`%`: `-7 / 2 == -4`, `-7 % 2 == 1` and `7 % -2 == -1` (the remainder takes the divisor's
sign, and `a == (a / b) * b + a % b`). A zero divisor is an error of the model (M002 where a
transition evaluates it, T009 in a constant), never a crash of the checker.

This module is the one home of that meaning. The evaluators (constants, the IR interpreter,
the reference interpreter, the pipeline type checker's epoch terms) compute with `div` and
`mod` (or `divide`); the code generators emit the forms named here: generated Python calls
the helpers of `checked_helpers` (by the names in `PYTHON_HELPERS`), and numpy code the
functions in `NUMPY_FUNCTIONS` on a divisor whose zeros were flagged and replaced.
"""

from __future__ import annotations

from collections.abc import Callable

#: The operators whose right operand must not be zero.
DIVISION = frozenset({"/", "%"})


class ZeroDivisor(ArithmeticError):
    """The right operand of `/` or `%` is zero; the message says which (`zero_divisor`)."""

    def __init__(self, op: str) -> None:
        super().__init__(zero_divisor(op))
        self.op = op


def zero_divisor(op: str) -> str:
    """How an error names a zero divisor of op: `division by zero` or `modulo by zero`."""
    return "division by zero" if op == "/" else "modulo by zero"


def div(a: int, b: int) -> int:
    """a / b, rounded toward negative infinity; ZeroDivisor when b is 0."""
    if b == 0:
        raise ZeroDivisor("/")
    return a // b


def mod(a: int, b: int) -> int:
    """a % b, with the sign of b (so that a == div(a, b) * b + mod(a, b)); ZeroDivisor when
    b is 0."""
    if b == 0:
        raise ZeroDivisor("%")
    return a % b


def divide(op: str, a: int, b: int) -> int:
    """a op b for op in DIVISION."""
    return div(a, b) if op == "/" else mod(a, b)


# ---------------------------------------------------------------------- generated code
#: The names generated Python calls for `a / b` and `a % b`: `_div(a, b, site)`.
PYTHON_HELPERS = {"/": "_div", "%": "_mod"}

#: The numpy functions with the same rounding, applied to a divisor without zeros (generated
#: code flags the rows where it is zero and divides those by 1).
NUMPY_FUNCTIONS = {"/": "np.floor_divide", "%": "np.remainder"}

Helper = Callable[[int, int, int], int]


def checked_helpers(fault: Callable[[int], BaseException]) -> dict[str, Helper]:
    """The functions of PYTHON_HELPERS: `(a, b, site) -> a op b`, raising `fault(site)` when
    b is 0. They inline `//` and `%` (no call to `div`), as generated code runs them per
    transition."""

    def _div(a: int, b: int, site: int) -> int:
        if b == 0:
            raise fault(site)
        return a // b

    def _mod(a: int, b: int, site: int) -> int:
        if b == 0:
            raise fault(site)
        return a % b

    return {PYTHON_HELPERS["/"]: _div, PYTHON_HELPERS["%"]: _mod}
