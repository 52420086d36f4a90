"""IR as Python source, for the scalar engine's generated code (fito/semantics/codegen/scalar.py):
an expression over the state tuple, the tests that a value is within its type, and the
checks the generated code calls."""

from __future__ import annotations

from fito.lang.arithmetic import DIVISION, PYTHON_HELPERS
from fito.lang.resolve.model import IntT, SetT, ValueType
from fito.semantics.codegen.loader import defer
from fito.semantics.ir import IR, Fault, chain_of
from fito.semantics.state.ranges import value_range

_PY = {
    "==": "==",
    "!=": "!=",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "+": "+",
    "-": "-",
    "*": "*",
}


_FLAT = {"and": "and", "or": "or", "+": "+", "*": "*"}  # left-associative in Python too


# Python's parser refuses more than 200 nested parentheses and its compiler recurses on
# nesting: an expression nested deeper than MAX_NESTING levels (an atomic block of 100
# statements, each reading the one before) goes on in a helper function of its own, which
# the expression calls; a chain of more than MAX_CHAIN operands is grouped.
MAX_NESTING = 40
MAX_CHAIN = 64


def to_python(ir: IR, var: str = "s") -> str:
    """A Python expression computing ir from the tuple named `var` (helpers: _rd, _div, _mod,
    _fault, _chk, and the deep parts' own functions, which `loader.load` defines)."""
    return _source(ir, var, 0)


def _source(ir: IR, var: str, depth: int) -> str:
    if depth >= MAX_NESTING and ir[0] not in ("k", "c"):
        return defer(f"return {_source(ir, var, 0)}", var)
    return _node(ir, var, depth + 1)


def _chain(parts: list[str], op: str) -> str:
    """`(a op b op ...)`, grouped so that no group holds more than MAX_CHAIN operands."""
    while len(parts) > MAX_CHAIN:
        parts = [
            "(" + f" {op} ".join(parts[i : i + MAX_CHAIN]) + ")"
            for i in range(0, len(parts), MAX_CHAIN)
        ]
    return "(" + f" {op} ".join(parts) + ")"


def _node(ir: IR, var: str, depth: int) -> str:  # noqa: C901 - one case per IR tag
    def to_python(x: IR, v: str) -> str:  # the children, one level deeper
        return _source(x, v, depth)

    tag = ir[0]
    if tag == "k":
        return str(ir[1])
    if tag == "c":
        return f"{var}[{ir[1]}]"
    if tag == "cd":
        idx = ", ".join(to_python(x, var) for x in ir[2])
        return f"_rd({var}, {ir[1]!r}, ({idx},), {ir[3]})"
    if tag == "neg":
        return f"(-{to_python(ir[1], var)})"
    if tag == "not":
        return f"(not {to_python(ir[1], var)})"
    if tag == "if":
        return f"({to_python(ir[2], var)} if {to_python(ir[1], var)} else {to_python(ir[3], var)})"
    if tag in ("min", "max"):
        return f"{tag}({to_python(ir[1], var)}, {to_python(ir[2], var)})"
    if tag == "fault":
        return f"_fault({ir[1]}, {ir[2]!r})"
    if tag == "chk":
        return _check_source(to_python(ir[1], var), ir[2], ir[3])
    if tag == "seq":
        parts = "".join(to_python(x, var) + ", " for x in ir[1])
        return f"({parts}{to_python(ir[2], var)})[-1]"
    if tag == "safe":
        return f"_safe(lambda: {to_python(ir[1], var)})"
    assert tag == "op", f"{tag} is not compiled here (a variable not yet relocated?)"
    _, op, a, b, err = ir
    if op in _FLAT:  # a chain `x op y op z` without nested parentheses (Python allows 200)
        return _chain([to_python(x, var) for x in chain_of(ir)], _FLAT[op])
    sa, sb = to_python(a, var), to_python(b, var)
    if op == "=>":
        return f"((not {sa}) or {sb})"
    if op in DIVISION:
        return f"{PYTHON_HELPERS[op]}({sa}, {sb}, {err})"
    return f"({sa} {_PY[op]} {sb})"


def _check_source(value: str, t: ValueType, err: int) -> str:
    """`value` checked against t, by the helpers _chkr (a range) and _chks (a set)."""
    if isinstance(t, SetT):
        return f"_chks({value}, {frozenset(t.members)!r}, {err})"
    if isinstance(t, IntT):  # lo..*: bounded below only
        return f'_chkr({value}, {t.lo}, float("inf"), {err})'
    lo, hi = value_range(t)
    return f"_chkr({value}, {lo}, {hi}, {err})"


def contains_source(var: str, t: ValueType) -> str:
    """A Python test that the value named var lies in t."""
    if isinstance(t, IntT):
        return "True" if t.lo is None else f"{var} >= {t.lo}"
    if isinstance(t, SetT):
        return f"{var} in {set(t.members)!r}"
    lo, hi = value_range(t)
    return f"{lo} <= {var} <= {hi}"


def chk_range(v: int, lo: int, hi: int, err: int) -> int:
    if not lo <= v <= hi:
        raise Fault(err, str(v))
    return v


def chk_set(v: int, members: frozenset[int], err: int) -> int:
    if v not in members:
        raise Fault(err, str(v))
    return v
