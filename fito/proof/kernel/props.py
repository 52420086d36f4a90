"""Propositions: what an obligation proves, computed by the kernel from the obligation.

Every checker returns the *conclusion* of its obligation: a closed proposition in JSON,
with every free symbol bound by a quantifier that names its domain. A certificate's
`statement` must be exactly the list of its obligations' conclusions (or, when refuted,
of their negations), so the statement, its symbols and their domains are bound by the
checks, not by the hash. Standard library only.

    proposition := ["forall", binders, P] | ["exists", binders, P] | ["not", P]
                 | ["implies", P, P] | ["and", P, ...] | a formula of the expression language
                 | ["=", term, term] with terms such as ["count", binders, where], ["det", M]
                 | ["trusted", tool, version, text]
    binders     := [[name, domain], ...]
    domain      := "real" | "nat" | "int" | "positive" | "nonneg" | "function"
                 | "positive function" | ["int", lo, hi] | ["interval", lo, hi, "[)" | "()"]
                 | ["int>=", lo] | ["reachable", system] | ["spectrum", matrix]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fito.proof.kernel.expr import BINDERS, KernelError, functions, symbols, to_json

Json = Any


def exponent_symbols(e: Any) -> set[str]:
    """Symbols occurring in an exponent: the kernel's normal form takes them as naturals."""
    if not isinstance(e, tuple):
        return set()
    if e[0] == "^":
        return symbols(e[2]) | exponent_symbols(e[1]) | exponent_symbols(e[2])
    parts = e[2:] if e[0] == "fn" or e[0] in BINDERS else e[1:]
    return set().union(*(exponent_symbols(a) for a in parts))


def binders(
    parsed: Iterable[Any],
    *,
    positive: Iterable[str] = (),
    nonneg: Iterable[str] = (),
    integer: Iterable[str] = (),
    positive_functions: Iterable[str] = (),
    domains: dict[str, Json] | None = None,
) -> list[list[Json]]:
    """[[name, domain], ...] for every free symbol and function of the parsed expressions,
    sorted by name: given `domains` first, then declared classes, exponents natural, else real."""
    items = list(parsed)
    names = set().union(*(symbols(e) for e in items)) if items else set()
    funcs = set().union(*(functions(e) for e in items)) if items else set()
    clash = names & funcs
    if clash:
        raise KernelError(f"{min(clash)} is used both as a symbol and as a function")
    natural = set().union(*(exponent_symbols(e) for e in items)) if items else set()
    given = domains or {}
    classes = [(set(positive), "positive"), (set(nonneg), "nonneg"), (set(integer), "int")]
    out = []
    for name in sorted(names):
        domain: Json = given.get(name)
        if domain is None:
            fallback = "nat" if name in natural else "real"
            domain = next((d for s, d in classes if name in s), fallback)
        out.append([name, domain])
    out += [
        [f, "positive function" if f in set(positive_functions) else "function"]
        for f in sorted(funcs)
    ]
    out.sort(key=lambda b: b[0])
    return out


def forall(bound: list, body: Json) -> Json:
    """["forall", bound, body], or body itself when nothing is bound."""
    return ["forall", bound, body] if bound else body


def exists(bound: list, body: Json) -> Json:
    """["exists", bound, body], or body itself when nothing is bound."""
    return ["exists", bound, body] if bound else body


def conj(parts: list[Json]) -> Json:
    """The conjunction of parts (a single part stands alone; none is true)."""
    if not parts:
        return True
    return parts[0] if len(parts) == 1 else ["and", *parts]


def implies(hypotheses: list[Json], body: Json) -> Json:
    """hypotheses => body (body alone without hypotheses)."""
    return ["implies", conj(hypotheses), body] if hypotheses else body


def nonzero_hypotheses(conds: list[Any]) -> list[Json]:
    """[c != 0, ...] for parsed conditions."""
    return [["!=", to_json(c), 0] for c in conds]


def negate(p: Json) -> Json:
    """not p, with a double negation removed."""
    return p[1] if isinstance(p, list) and len(p) == 2 and p[0] == "not" else ["not", p]


# ---------------------------------------------------------------- reading
def render(p: Json, depth: int = 0) -> str:
    """A proposition as text for a reader (`fito recheck --show`)."""
    if isinstance(p, bool):
        return "true" if p else "false"
    if not isinstance(p, list):
        return str(p)
    op = p[0] if p and isinstance(p[0], str) else None
    if op in ("forall", "exists") and len(p) == 3:
        word = "for all" if op == "forall" else "there are"
        return f"{word} {_binders_text(p[1])}: {render(p[2], depth + 1)}"
    if op == "not" and len(p) == 2:
        return f"not ({render(p[1], depth + 1)})"
    if op == "implies" and len(p) == 3:
        return f"if {render(p[1], depth + 1)} then {render(p[2], depth + 1)}"
    if op in ("and", "or"):
        return "(" + f" {op} ".join(render(a, depth + 1) for a in p[1:]) + ")"
    if op == "trusted" and len(p) == 4:
        return f"[taken on the word of {p[1]} {p[2]}] {p[3]}"
    if op in ("+", "*", "/", "^", "-") or op in ("<", "<=", "=", "!=", ">=", ">"):
        if op == "-" and len(p) == 2:
            return f"-{render(p[1], depth + 1)}"
        return "(" + f" {op} ".join(render(a, depth + 1) for a in p[1:]) + ")"
    if op == "fn":
        return f"{p[1]}(" + ", ".join(render(a, depth + 1) for a in p[2:]) + ")"
    if op in _AGGREGATES and len(p) >= 3 and isinstance(p[1], list):
        over = (
            _binders_text(p[1]) if p[1] and isinstance(p[1][0], list) else render(p[1], depth + 1)
        )
        what = "" if op == "count" or len(p) < 4 else f" of {render(p[3], depth + 1)}"
        return f"{op}{what} over {over} where {render(p[2], depth + 1)}"
    if op == "rec" and len(p) == 6:
        k, start, initial, prev, step = p[1:]
        step = _replace(step, prev, ["fn", "s", k])
        return (
            f"[s({k}) where s({render(start)}) = {render(initial)} and s({k} + 1) = {render(step)}]"
        )
    if op == "matrix":
        return "[" + "; ".join(", ".join(render(x) for x in row) for row in p[1:]) + "]"
    if op in ("sum", "prod") and len(p) == 5:
        return f"{op}_({p[1]}={render(p[2])}..{render(p[3])}) {render(p[4], depth + 1)}"
    if op == "reachable" and len(p) == 2:
        return "the states reachable in the transition system given"
    if op is None:
        return "[" + ", ".join(render(a, depth + 1) for a in p) + "]"
    return f"{op}(" + ", ".join(render(a, depth + 1) for a in p[1:]) + ")"


_AGGREGATES = ("count", "sum", "min", "max", "set", "all", "any")


def _replace(p: Json, name: str, by: Json) -> Json:
    if p == name:
        return by
    return [_replace(a, name, by) for a in p] if isinstance(p, list) else p


def _binders_text(bound: list) -> str:
    parts = []
    for item in bound:
        name, domain = item[0], item[1]
        if isinstance(domain, str):
            parts.append(f"{name} {domain}")
        elif domain and domain[0] == "int":
            parts.append(f"integer {name} in {render(domain[1])}..{render(domain[2])}")
        elif domain and domain[0] == "interval":
            left, right = domain[3][0], domain[3][1]
            parts.append(f"{name} in {left}{render(domain[1])}, {render(domain[2])}{right}")
        elif domain and domain[0] == "int>=":
            parts.append(f"integer {name} >= {render(domain[1])}")
        else:
            parts.append(f"{name} in {render(domain)}")
    return ", ".join(parts)
