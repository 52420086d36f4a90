"""The language's `/` and `%` (fito.lang.arithmetic): LANGUAGE.md's rounding, the zero
divisor, and the forms the code generators emit computing the same values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fito.diagnostics import NO_SPAN
from fito.lang.arithmetic import (
    NUMPY_FUNCTIONS,
    PYTHON_HELPERS,
    ZeroDivisor,
    checked_helpers,
    div,
    divide,
    mod,
)
from fito.lang.resolve.consteval import ConstError, arith


class Boom(Exception):
    def __init__(self, site: int) -> None:
        super().__init__(site)
        self.site = site


def test_rounding_toward_negative_infinity() -> None:
    assert (div(7, 2), mod(7, 2)) == (3, 1)
    assert (div(-7, 2), mod(-7, 2)) == (-4, 1)
    assert (div(7, -2), mod(7, -2)) == (-4, -1)
    assert (div(-7, -2), mod(-7, -2)) == (3, -1)


@pytest.mark.parametrize("op, message", [("/", "division by zero"), ("%", "modulo by zero")])
def test_a_zero_divisor_is_an_error_that_names_the_operator(op: str, message: str) -> None:
    with pytest.raises(ZeroDivisor, match=message):
        divide(op, 1, 0)
    with pytest.raises(ConstError, match=message):
        arith(op, 1, 0, NO_SPAN)
    helper = checked_helpers(Boom)[PYTHON_HELPERS[op]]
    with pytest.raises(Boom) as raised:
        helper(1, 0, 7)
    assert raised.value.site == 7


ints = st.integers(-(2**40), 2**40)


@given(ints, ints.filter(bool))
def test_every_form_computes_the_same_value(a: int, b: int) -> None:
    assert a == div(a, b) * b + mod(a, b)
    helpers = checked_helpers(Boom)
    namespace = {"np": np}
    for op in ("/", "%"):
        want = divide(op, a, b)
        assert arith(op, a, b, NO_SPAN) == want
        assert helpers[PYTHON_HELPERS[op]](a, b, 0) == want
        got = eval(f"{NUMPY_FUNCTIONS[op]}(x, y)", namespace, {"x": np.int64(a), "y": np.int64(b)})
        assert int(got) == want
