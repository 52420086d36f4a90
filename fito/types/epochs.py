"""Epoch terms and facts: linear integer arithmetic in a canonical form, ready for Z3.

A term is `Lin`: a sum of integer atoms times coefficients plus a constant. An atom is an
epoch variable (its name) or an opaque integer (`Div`, `Mod`, `IteInt`: floor division and
remainder by a constant, `if`, `min`, `max`). A fact is a `Formula` whose comparisons are
normalized to `lin == 0` or `lin <= 0` with coprime coefficients, so that `e2 == e1 + 1`,
`e1 + 1 == e2` and `2*e2 == 2*e1 + 2` are one question for the solver and its cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from fito.lang.arithmetic import div, mod


@dataclass(frozen=True, slots=True)
class Div:
    """`num / k`, rounding toward negative infinity (LANGUAGE.md), k != 0."""

    num: Lin
    k: int


@dataclass(frozen=True, slots=True)
class Mod:
    """`num % k`, with the sign of k (Python), k != 0."""

    num: Lin
    k: int


@dataclass(frozen=True, slots=True)
class IteInt:
    cond: Formula
    then: Lin
    orelse: Lin


Atom = str | Div | Mod | IteInt


def _atom_key(a: Atom) -> tuple[int, str]:
    return (0, a) if isinstance(a, str) else (1, repr(a))


@dataclass(frozen=True, slots=True)
class Lin:
    """sum(coef * atom) + const, atoms sorted, coefficients non-zero."""

    terms: tuple[tuple[Atom, int], ...] = ()
    const: int = 0

    @staticmethod
    def var(name: str) -> Lin:
        return Lin(((name, 1),), 0)

    @staticmethod
    def lit(value: int) -> Lin:
        return Lin((), value)

    @staticmethod
    def atom(a: Atom) -> Lin:
        return Lin(((a, 1),), 0)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def plus(self, other: Lin, sign: int = 1) -> Lin:
        coef: dict[Atom, int] = dict(self.terms)
        for a, c in other.terms:
            coef[a] = coef.get(a, 0) + sign * c
        terms = tuple(sorted(((a, c) for a, c in coef.items() if c), key=lambda t: _atom_key(t[0])))
        return Lin(terms, self.const + sign * other.const)

    def scale(self, k: int) -> Lin:
        if k == 0:
            return Lin()
        return Lin(tuple((a, c * k) for a, c in self.terms), self.const * k)

    def variables(self) -> frozenset[str]:
        out: set[str] = set()
        for a, _ in self.terms:
            out |= atom_variables(a)
        return frozenset(out)


def atom_variables(a: Atom) -> frozenset[str]:
    if isinstance(a, str):
        return frozenset((a,))
    if isinstance(a, (Div, Mod)):
        return a.num.variables()
    return a.cond.variables() | a.then.variables() | a.orelse.variables()


# ---------------------------------------------------------------------------- formulas
@dataclass(frozen=True, slots=True)
class Truth:
    value: bool

    def variables(self) -> frozenset[str]:
        return frozenset()


@dataclass(frozen=True, slots=True)
class Cmp:
    """`lin == 0` (op "eq") or `lin <= 0` (op "le")."""

    op: str
    lin: Lin

    def variables(self) -> frozenset[str]:
        return self.lin.variables()


@dataclass(frozen=True, slots=True)
class Not:
    arg: Formula

    def variables(self) -> frozenset[str]:
        return self.arg.variables()


@dataclass(frozen=True, slots=True)
class Junction:
    """`and` (op "and") or `or` (op "or") of two or more formulas."""

    op: str
    args: tuple[Formula, ...]

    def variables(self) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for a in self.args:
            out |= a.variables()
        return out


@dataclass(frozen=True, slots=True)
class IteBool:
    cond: Formula
    then: Formula
    orelse: Formula

    def variables(self) -> frozenset[str]:
        return self.cond.variables() | self.then.variables() | self.orelse.variables()


Formula = Truth | Cmp | Not | Junction | IteBool
TRUE, FALSE = Truth(True), Truth(False)


def compare(op: str, a: Lin, b: Lin) -> Formula:
    """The canonical formula of `a op b` for op in == != < <= > >=."""
    if op == "==":
        return _eq(a.plus(b, -1))
    if op == "!=":
        return negate(_eq(a.plus(b, -1)))
    if op == "<=":
        return _le(a.plus(b, -1))
    if op == "<":
        return _le(a.plus(b, -1).plus(Lin.lit(1)))
    if op == ">=":
        return _le(b.plus(a, -1))
    if op == ">":
        return _le(b.plus(a, -1).plus(Lin.lit(1)))
    raise ValueError(f"not a comparison: {op}")


def _content(lin: Lin) -> int:
    g = 0
    for _, c in lin.terms:
        g = gcd(g, c)
    return g


def _eq(d: Lin) -> Formula:
    if d.is_const:
        return Truth(d.const == 0)
    g = _content(d)
    if d.const % g:
        return FALSE  # no integer solution: g divides the left side, not the constant
    if d.terms[0][1] < 0:
        g = -g
    return Cmp("eq", Lin(tuple((a, c // g) for a, c in d.terms), d.const // g))


def _le(d: Lin) -> Formula:
    if d.is_const:
        return Truth(d.const <= 0)
    g = _content(d)
    # sum(c x) + k <= 0  <=>  sum(c/g x) <= floor(-k/g)  <=>  sum(c/g x) + ceil(k/g) <= 0
    return Cmp("le", Lin(tuple((a, c // g) for a, c in d.terms), -((-d.const) // g)))


def normal_cmp(op: str, lin: Lin) -> Formula:
    """The canonical `lin == 0` (op "eq") or `lin <= 0` (op "le")."""
    return _eq(lin) if op == "eq" else _le(lin)


def negate(f: Formula) -> Formula:
    if isinstance(f, Truth):
        return Truth(not f.value)
    if isinstance(f, Not):
        return f.arg
    if isinstance(f, Cmp) and f.op == "le":  # not (d <= 0)  <=>  -d + 1 <= 0
        return _le(f.lin.scale(-1).plus(Lin.lit(1)))
    return Not(f)


def junction(op: str, parts: list[Formula]) -> Formula:
    """`and`/`or` with constant folding and flattening (order kept: it is the source's)."""
    unit, zero = (TRUE, FALSE) if op == "and" else (FALSE, TRUE)
    flat: list[Formula] = []
    for p in parts:
        if p == zero:
            return zero
        if p == unit:
            continue
        items = p.args if isinstance(p, Junction) and p.op == op else (p,)
        flat.extend(x for x in items if x not in flat)
    if not flat:
        return unit
    return flat[0] if len(flat) == 1 else Junction(op, tuple(flat))


def ite_formula(c: Formula, a: Formula, b: Formula) -> Formula:
    if isinstance(c, Truth):
        return a if c.value else b
    return a if a == b else IteBool(c, a, b)


def ite_int(c: Formula, a: Lin, b: Lin) -> Lin:
    if isinstance(c, Truth):
        return a if c.value else b
    return a if a == b else Lin.atom(IteInt(c, a, b))


def floor_div(a: Lin, k: int) -> Lin:
    """a / k in the language's arithmetic (fito.lang.arithmetic); k != 0."""
    if a.is_const:
        return Lin.lit(div(a.const, k))
    return Lin.atom(Div(a, k))


def floor_mod(a: Lin, k: int) -> Lin:
    """a % k in the language's arithmetic (fito.lang.arithmetic); k != 0."""
    if a.is_const:
        return Lin.lit(mod(a.const, k))
    return Lin.atom(Mod(a, k))


def equality(a: Lin, b: Lin) -> Formula:
    """The canonical `a == b` (the question a `converge` asks)."""
    return _eq(a.plus(b, -1))


# ---------------------------------------------------------------------------- display
def show_lin(t: Lin) -> str:
    """A readable rendering (`2*e1 - e2 + 1`), used where no source text is at hand."""
    parts: list[str] = []
    for a, c in t.terms:
        body = _show_atom(a)
        mag = abs(c)
        word = body if mag == 1 else f"{mag}*{body}"
        parts.append(("- " if c < 0 else "+ ") + word)
    if t.const or not parts:
        parts.append(("- " if t.const < 0 else "+ ") + str(abs(t.const)))
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def _show_atom(a: Atom) -> str:
    if isinstance(a, str):
        return a
    if isinstance(a, Div):
        return f"({show_lin(a.num)}) / {a.k}"
    if isinstance(a, Mod):
        return f"({show_lin(a.num)}) % {a.k}"
    return f"(if {show_formula(a.cond)} then {show_lin(a.then)} else {show_lin(a.orelse)})"


def show_formula(f: Formula) -> str:
    if isinstance(f, Truth):
        return "true" if f.value else "false"
    if isinstance(f, Cmp):
        return f"{show_lin(f.lin)} {'==' if f.op == 'eq' else '<='} 0"
    if isinstance(f, Not):
        return f"not ({show_formula(f.arg)})"
    if isinstance(f, Junction):
        return f" {f.op} ".join(f"({show_formula(a)})" for a in f.args)
    return f"(if {show_formula(f.cond)} then {show_formula(f.then)} else {show_formula(f.orelse)})"
