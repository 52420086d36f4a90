"""A Z3 invariant over the store and the control as spec expressions: slot variables by
their cell names (`p[1]`, `has[gpu][0]`), the control as `control` (the number of a control
of the skeleton), each number the invariant names explained by a comment line giving what
every component of the network has left to do there."""

from __future__ import annotations

from fractions import Fraction

import z3

from fito.check.symbolic.linear import NotLinear, atom, show_atom
from fito.check.symbolic.prove import Proof
from fito.lang.printer.canonical import print_proc
from fito.semantics.compiled import Compiled

_OPS = {
    z3.Z3_OP_LE: "<=",
    z3.Z3_OP_GE: ">=",
    z3.Z3_OP_LT: "<",
    z3.Z3_OP_GT: ">",
    z3.Z3_OP_EQ: "==",
    z3.Z3_OP_DISTINCT: "!=",
    z3.Z3_OP_ADD: "+",
    z3.Z3_OP_SUB: "-",
    z3.Z3_OP_MUL: "*",
    z3.Z3_OP_DIV: "/",
    z3.Z3_OP_IDIV: "/",
    z3.Z3_OP_MOD: "%",
}


def invariant_lines(c: Compiled, proof: Proof) -> tuple[str, ...]:
    """The invariant's conjuncts, each in spec syntax."""
    names = slot_names(c)
    f = proof.invariant
    parts = f.children() if z3.is_and(f) else [f]
    lines = [show(p, names) for p in parts]
    named, ordered = _controls_named(f)
    if ordered and len(proof.controls) <= MAX_LEGEND:  # `control <= 12`: every number counts
        named = set(range(len(proof.controls)))
    return tuple(lines + [_legend(c, proof, k) for k in sorted(named)])


def slot_names(c: Compiled) -> dict[str, str]:
    """The Z3 variables' names in spec syntax: cells by name, the control as `control`."""
    names = {f"x{i}": n for i, n in enumerate(c.layout.names)}
    names["pc"] = "control"
    return names


LOCATION_WIDTH = 48  # characters of a component's remaining process shown per control
MAX_LEGEND = 24  # controls explained when the invariant orders them (`control <= 12`)


def _controls_named(f: z3.ExprRef) -> tuple[set[int], bool]:
    """The control numbers the invariant compares `control` with, and whether it orders
    them (an inequality) rather than only naming them (== and !=)."""
    out: set[int] = set()
    ordered = False
    todo = [f]
    while todo:
        e = todo.pop()
        try:
            got = atom(e)
        except NotLinear:
            got = None
        if got is not None and set(got[0]) <= {"pc", ""} and "pc" in got[0]:
            t = got[0]
            out.add(int(-t.get("", Fraction(0)) / t["pc"]))
            ordered = ordered or got[1] == ">="
            continue
        todo.extend(e.children())
    return out, ordered


def _legend(c: Compiled, proof: Proof, k: int) -> str:
    """`-- control k: what each component has left to do`, from the term table."""
    if not 0 <= k < len(proof.controls):
        return f"-- control {k}: none (the numbers run 0 .. {len(proof.controls) - 1})"
    parts = [_location(c, tid) for tid in proof.controls[k][1:]]
    return f"-- control {k}: " + " || ".join(parts)


def _location(c: Compiled, tid: int) -> str:
    entry = c.terms[tid]
    tag = entry[0]
    if tag in ("stop", "omega", "skip"):
        return {"stop": "STOP", "omega": "(terminated)", "skip": "SKIP"}[tag]
    try:
        text = print_proc(c.program_node(entry[1]))  # type: ignore[arg-type]
    except (KeyError, IndexError, TypeError, AttributeError):
        return tag
    if len(text) > LOCATION_WIDTH:
        text = text[: LOCATION_WIDTH - 3] + "..."
    env = entry[2] if len(entry) > 2 and isinstance(entry[2], tuple) else ()
    bound = ", ".join(f"{n} = {v}" for n, v in env if isinstance(n, str))
    return f"{text} [{bound}]" if bound else text


def show(e: z3.ExprRef, names: dict[str, str]) -> str:
    """One Z3 term in spec syntax (fully parenthesised below the top)."""
    if z3.is_true(e):
        return "true"
    if z3.is_false(e):
        return "false"
    if z3.is_int_value(e):
        return str(e.as_long())
    if z3.is_const(e):
        return names.get(str(e), str(e))
    args = [_sub(a, names) for a in e.children()]
    got = _linear_atom(e, names)
    if got is not None:
        return got
    if z3.is_not(e):
        inner = _linear_atom(e.children()[0], names, negate=True)
        return inner if inner is not None else f"not {args[0]}"
    if z3.is_and(e) or z3.is_or(e):  # comparisons bind tighter than `and` and `or`
        parts = [show(a, names) if _is_comparison(a) else s for a, s in zip(e.children(), args)]
        return (" and " if z3.is_and(e) else " or ").join(parts)
    if z3.is_implies(e):
        return f"{args[0]} => {args[1]}"
    if z3.is_app_of(e, z3.Z3_OP_ITE):
        return f"if {args[0]} then {args[1]} else {args[2]}"
    if z3.is_app_of(e, z3.Z3_OP_UMINUS):
        return f"-{args[0]}"
    kind = e.decl().kind()
    if kind in _OPS and len(args) >= 2:
        return f" {_OPS[kind]} ".join(args)
    return str(e)


def _linear_atom(e: z3.ExprRef, names: dict[str, str], negate: bool = False) -> str | None:
    """A comparison of linear terms as `lhs op rhs` (negated: the opposite comparison)."""
    try:
        got = atom(e)
    except NotLinear:
        return None
    if got is None:
        return None
    t, op = got
    if negate:
        if op == ">=":  # not (t >= 0) is -t - 1 >= 0 over the integers
            t = {k: -v for k, v in t.items()}
            t[""] = t.get("", Fraction(0)) - 1
        else:
            op = "!=" if op == "=" else "="
    return show_atom(t, op, names)


def _is_comparison(e: z3.ExprRef) -> bool:
    try:
        return atom(e) is not None
    except NotLinear:
        return False


def _sub(e: z3.ExprRef, names: dict[str, str]) -> str:
    text = show(e, names)
    simple = z3.is_const(e) or z3.is_int_value(e) or z3.is_not(e)
    return text if simple else f"({text})"
