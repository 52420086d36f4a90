"""The certificate of a symbolic proof: initiation, consecution (one obligation per control
and transition) and safety of the inductive invariant, as `linear_valid` obligations the
proof kit's kernel re-checks without Z3 (Farkas multipliers per case of each negation,
fito/proof/kernel/linear.py); an obligation outside linear arithmetic, or one the exact LP
finds no multipliers for, is kept with the visible trust tag of Z3.

Integers: the kernel reasons over the reals, so each atom is written in the form that is
exact for integers where the kernel will use it: `t >= 0` where it is assumed, `t > -1`
where its negation is assumed (`t <= -1`, the integer negation). The obligations are about
the transition system fito/check/symbolic/system.py builds; that translation of the spec
is the producer's and is not re-checked.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import z3

from fito.check.symbolic.linear import Linear, NotLinear, atom
from fito.check.symbolic.prove import Proof
from fito.check.symbolic.system import System
from fito.proof.kernel.certificate import FORMAT, Result, seal
from fito.proof.kernel.expr import KernelError, compile_expr, parse, symbols
from fito.proof.kernel.linear import negated_cases
from fito.proof.lp import farkas_multipliers

Json = Any


FARKAS_SECONDS = 5.0  # past this, the remaining obligations keep Z3's word (a trust tag)


def certificate(system: System, proof: Proof, bad: z3.BoolRef, title: str) -> tuple[dict, Result]:
    """The sealed certificate of `proof` (invariant excludes bad) and the kernel's result."""
    inv, dom = proof.invariant, system.domain
    until = time.monotonic() + FARKAS_SECONDS
    obligations: list[Json] = []
    n = len(system.skeleton.controls)
    init = z3.And(*(x == v for x, v in zip(system.x, system.init_store)))
    obligations.extend(_obligations("initiation", init, _at(inv, system, 0), until))
    for k in range(n):
        here = z3.And(
            _at(inv, system, k), _at(dom, system, k), z3.Not(_at(system.error, system, k))
        )
        for m in system.moves[k]:
            after = [*zip(system.x, m.store), (system.pc, z3.IntVal(m.edge.target))]
            post = z3.substitute(inv, *after)
            post_dom = z3.substitute(dom, *after)
            hyp = z3.And(here, m.enabled, post_dom)
            name = f"consecution at control {k}, transition {m.edge.rank:#x}"
            obligations.extend(_obligations(name, hyp, post, until))
        safe = _obligations(
            f"safety at control {k}",
            z3.And(_at(inv, system, k), _at(dom, system, k)),
            z3.Not(_at(bad, system, k)),
            until,
        )
        obligations.extend(safe)
    kept = [ob for ob in obligations if ob is not None]
    if not kept:
        raise NotLinear("nothing to re-check: every obligation is a closed formula that holds")
    body = {
        "format": FORMAT,
        "id": "symbolic-invariant",
        "title": title,
        "description": "an inductive invariant of the spec's transition system: it holds "
        "initially, every transition keeps it, and it excludes the bad states",
        "model": "fito/check/symbolic/system.py",
        "method": proof.method,
        "verdict": "proved",
        "obligations": kept,
        "producer": {"fito": "symbolic", "z3": z3.get_version_string()},
    }
    return seal(body)


def _at(f: z3.ExprRef, system: System, k: int) -> z3.BoolRef:
    """f with the control fixed to k, simplified."""
    return z3.simplify(z3.substitute(f, (system.pc, z3.IntVal(k))))


def _obligations(name: str, hyp: z3.BoolRef, concl: z3.BoolRef, until: float) -> list[Json]:
    """`hyp => concl` as kernel obligations, one per conjunct c of concl: `core => c`, core
    the conjuncts of hyp an unsat core names (fewer hypotheses: a stronger statement, and a
    negation with fewer cases)."""
    hyps = _conjuncts(z3.simplify(hyp))
    out = []
    for c in _conjuncts(z3.simplify(concl)):
        s = z3.Solver()
        marks = [z3.Bool(f"h{j}") for j in range(len(hyps))]
        for m, h in zip(marks, hyps):
            s.assert_and_track(h, m)
        s.add(z3.Not(c))
        if s.check() != z3.unsat:
            raise NotLinear(f"{name} does not hold")
        core = {str(m) for m in s.unsat_core()}
        used = [h for m, h in zip(marks, hyps) if str(m) in core]
        ob = _obligation(name, z3.And(*used) if used else z3.BoolVal(True), c, until)
        if ob is not None:
            out.append(ob)
    return out


def _conjuncts(f: z3.ExprRef) -> list[z3.BoolRef]:
    """The conjuncts of a conjunction, nested ones flattened."""
    if z3.is_and(f):
        return [c for a in f.children() for c in _conjuncts(a)]
    return [] if z3.is_true(f) else [f]


def _obligation(name: str, hyp: z3.BoolRef, concl: z3.BoolRef, until: float) -> Json | None:
    """`not hyp or concl` as a kernel obligation: Farkas cases, or Z3's word; None for a
    formula without a variable that holds (a model without cells has only such)."""
    try:
        if time.monotonic() > until:
            raise NotLinear("out of time for Farkas multipliers")
        formula = ["or", ["not", _json(hyp, assumed=True)], _json(concl, assumed=False)]
        parsed = parse(formula)
        if not symbols(parsed):  # a closed formula: nothing for the kernel to refute
            if compile_expr(parsed)({}) is not True:
                raise NotLinear(f"{name} does not hold")
            return None
        cases = negated_cases(parsed)
        mults = []
        for case in cases:
            y = farkas_multipliers(case) if case else None
            if y is None:
                raise NotLinear("a case without Farkas multipliers")
            mults.append([_rational(v) for v in y])
        return {"kind": "linear_valid", "formula": formula, "cases": mults}
    except (NotLinear, KernelError) as exc:
        s = z3.Solver()
        s.add(hyp, z3.Not(concl))
        if s.check() != z3.unsat:
            raise NotLinear(f"{name} does not hold") from exc
        return {
            "kind": "trusted",
            "tool": "z3",
            "version": z3.get_version_string(),
            "statement": f"{name}: {hyp.sexpr()[:200]} implies {concl.sexpr()[:200]}",
        }


def _rational(v: Fraction) -> Json:
    return v.numerator if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def _json(e: z3.ExprRef, assumed: bool) -> Json:
    """A Boolean formula in the kernel's JSON form. `assumed`: where the kernel's case split
    will assume it as written (else its negation), so the integer-exact form is chosen."""
    if z3.is_true(e):
        return True
    if z3.is_false(e):
        return False
    if z3.is_not(e):
        return ["not", _json(e.children()[0], not assumed)]
    if z3.is_and(e):
        return ["and", *(_json(a, assumed) for a in e.children())]
    if z3.is_or(e):
        return ["or", *(_json(a, assumed) for a in e.children())]
    if z3.is_implies(e):
        a, b = e.children()
        return ["or", ["not", _json(a, not assumed)], _json(b, assumed)]
    lifted = _lift_if(e)
    if lifted is not None:  # t(if c then a else b) op 0: the two cases as connectives
        return _json(lifted, assumed)
    got = atom(e)
    if got is None:
        raise NotLinear(str(e))
    t, op = got
    if op == "!=":
        return ["not", _compare(t, "=", not assumed)]
    return _compare(t, op, assumed)


def _lift_if(e: z3.ExprRef) -> z3.BoolRef | None:
    """A comparison with an `if` term inside, as `(c and e[a]) or (not c and e[b])`."""
    kids = e.children() if z3.is_app(e) else []
    if not kids or z3.is_bool(kids[0]):
        return None
    todo = list(e.children())
    while todo:
        t = todo.pop()
        if z3.is_app_of(t, z3.Z3_OP_ITE) and not z3.is_bool(t):
            c, a, b = t.children()
            then = z3.substitute(e, (t, a))
            other = z3.substitute(e, (t, b))
            return z3.Or(z3.And(c, then), z3.And(z3.Not(c), other))
        todo.extend(t.children())
    return None


def _compare(t: Linear, op: str, assumed: bool) -> Json:
    term = _term(t)
    if assumed:
        return [op, term, 0]
    if op == ">=":
        return [">", term, -1]
    return ["and", [">", term, -1], ["<", term, 1]]


def _term(t: Linear) -> Json:
    parts: list[Json] = []
    for k, v in sorted(t.items()):
        c = _rational(v)
        parts.append(c if k == "" else (k if v == 1 else ["*", c, k]))
    if not parts:
        return 0
    return parts[0] if len(parts) == 1 else ["+", *parts]
