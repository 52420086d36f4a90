"""Static checks of an `ltl` assertion: its propositions are Bool expressions over cells,
its events and fairness targets name channels and processes (docs/ltl.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fito.lang import nodes as A
from fito.lang import temporal as T
from fito.lang.resolve.model import BoolT
from fito.lang.resolve.processes import check_event_set

if TYPE_CHECKING:
    from fito.lang.resolve.resolver import Resolver


def check_ltl(r: Resolver, d: A.AssertDecl) -> None:
    """Report what is wrong with the formula and the fairness of d."""
    for leaf in T.props(d.formula):
        if isinstance(leaf, T.Fired):
            check_event_set(r, leaf.events, {})
            continue
        t = r.infer(leaf.expr, {})
        if t is not None and not isinstance(t, BoolT):
            r.err("T001", f"a proposition must be Bool, this is {t.kind()}", leaf.expr.span)
    for f in d.fairness:
        for target in f.targets:
            if isinstance(target, A.EventSet):
                check_event_set(r, target, {})
            else:
                r.check_proc(target, {}, initial=True)
