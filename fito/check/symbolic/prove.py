"""Proofs that no bad state is reachable, for runs of any length: k-induction over the
unrolled relation, and Spacer (Z3's constrained-Horn-clause engine), which returns an
inductive invariant."""

from __future__ import annotations

from dataclasses import dataclass

import z3

from fito.check.symbolic.system import System

SPACER, KINDUCTION = "spacer", "k-induction"


@dataclass(frozen=True, slots=True)
class Proof:
    """Bad states are unreachable: how it was shown, and the inductive invariant (over the
    current variables: it holds initially, is kept by every transition and excludes bad)."""

    method: str
    invariant: z3.BoolRef
    k: int = 1  # the induction depth (1: the invariant is inductive on its own)
    certificate: dict | None = (
        None  # sealed fito-certificate/2 (fito/check/symbolic/certificate.py)
    )
    kernel: str = ""  # what the proof kit's kernel said of it
    controls: tuple[tuple[int, ...], ...] = ()  # the skeleton's controls, by number


@dataclass(frozen=True, slots=True)
class Reachable:
    """Spacer found bad states reachable (the shortest run is left to BMC)."""


def spacer(system: System, bad: z3.BoolRef, timeout: float) -> Proof | Reachable | str:
    """Inv(init); Inv(s) and T(s, s') => Inv(s'); Inv(s) and bad(s) => false. A proof with
    the invariant Spacer found, Reachable, or why neither (text)."""
    fp = z3.Fixedpoint()
    fp.set(engine="spacer")
    fp.set("timeout", max(1, int(timeout * 1000)))
    sorts = [z3.IntSort()] * (system.K + 1)
    inv = z3.Function("Inv", *sorts, z3.BoolSort())
    now = (*system.x, system.pc)
    nxt = (*system.x1, system.pc1)
    fp.register_relation(inv)
    fp.declare_var(*now, *nxt)
    fp.rule(inv(*now), z3.And(system.init, system.domain))
    fp.rule(inv(*nxt), [inv(*now), system.domain, system.trans, system.primed(system.domain)])
    try:
        got = fp.query(z3.And(inv(*now), system.domain, bad))
    except z3.Z3Exception as exc:
        return f"spacer failed: {exc}"
    if got == z3.sat:
        return Reachable()
    if got != z3.unsat:
        return f"spacer: {fp.reason_unknown()}"
    cover = fp.get_cover_delta(-1, inv)
    invariant = z3.substitute_vars(cover, *now)
    return Proof(SPACER, z3.simplify(invariant))


def k_induction(system: System, bad: z3.BoolRef, k: int, timeout: float) -> Proof | str:
    """Whether k states in a row that are not bad are followed by no bad state (the base
    case, no bad run of fewer than k steps, is BMC's); with the states of the path
    pairwise distinct, which makes it complete on finite systems."""
    s = z3.Solver()
    s.set("timeout", max(1, int(timeout * 1000)))
    frames = [_frame(system, j) for j in range(k + 1)]
    for j, f in enumerate(frames):
        s.add(_at(system, system.domain, f))
        if j < k:
            s.add(z3.Not(_at(system, bad, f)))
            s.add(_step(system, system.trans, f, frames[j + 1]))
    for i in range(k + 1):
        for j in range(i + 1, k + 1):
            s.add(z3.Or(*(a != b for a, b in zip(_vec(frames[i]), _vec(frames[j])))))
    s.add(_at(system, bad, frames[k]))
    got = s.check()
    if got == z3.unsat:
        invariant = z3.Not(bad) if k == 1 else z3.BoolVal(True)
        return Proof(KINDUCTION, z3.And(system.domain, invariant), k)
    if got == z3.sat:
        return f"not {k}-inductive"
    return f"k-induction: {s.reason_unknown()}"


Frame = tuple[tuple[z3.ArithRef, ...], z3.ArithRef]


def _frame(system: System, j: int) -> Frame:
    return tuple(z3.Int(f"x{i}#{j}") for i in range(system.K)), z3.Int(f"pc#{j}")


def _vec(f: Frame) -> tuple[z3.ArithRef, ...]:
    return (*f[0], f[1])


def _at(system: System, f: z3.ExprRef, frame: Frame) -> z3.ExprRef:
    return z3.substitute(f, *zip(system.x, frame[0]), (system.pc, frame[1]))


def _step(system: System, f: z3.ExprRef, a: Frame, b: Frame) -> z3.ExprRef:
    pairs = [*zip(system.x, a[0]), (system.pc, a[1]), *zip(system.x1, b[0]), (system.pc1, b[1])]
    return z3.substitute(f, *pairs)
