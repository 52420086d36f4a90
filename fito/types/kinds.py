"""The FITO types of pipeline values (LANGUAGE.md, "Pipelines and the FITO type system").

`Snap(D, t)` is what was read from domain D at time t (a temporal snapshot), optionally with
epoch metadata; `Product` is several snapshots read one after another (t1 < t2 < ...), which
is not one Snap; `Conv(P, e)` is a state that satisfies protocol P's convergence predicate
for epoch e (evidence, no time). `Epoch`, `Int`, `Time` and `Bool` are plain values; `Epoch`
and `Int` carry their linear term and `Bool` its formula, so Z3 can reason about them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fito.lang import nodes as A
from fito.lang.printer.canonical import print_expr
from fito.types.epochs import TRUE, Formula, Lin, show_lin


def text(e: A.Expr) -> str:
    """The canonical source text of an expression, shortened for messages."""
    out = print_expr(e)
    return out if len(out) <= 60 else out[:57] + "..."


@dataclass(frozen=True, slots=True)
class EpochRef:
    """An epoch value: its canonical term and how the source wrote it (a name or an expression).

    The text is printed only when a message needs it, so deep expressions cost linear time.
    """

    term: Lin
    name: str | None = None
    expr: A.Expr | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        if self.name is not None:
            return self.name
        if self.expr is not None:
            return text(self.expr)
        return show_lin(self.term)


@dataclass(frozen=True, slots=True)
class Snap:
    domain: str
    time: int  # t1, t2, ... numbered per pipeline in reading order
    epoch: EpochRef | None = None  # the metadata written with `@ e`


@dataclass(frozen=True, slots=True)
class Product:
    """Snapshots of several domains taken one after the other: parts[i].time < parts[i+1].time."""

    parts: tuple[Snap, ...]


@dataclass(frozen=True, slots=True)
class Conv:
    protocol: str
    epoch: EpochRef
    domains: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EpochT:
    epoch: EpochRef


@dataclass(frozen=True, slots=True)
class IntT:
    epoch: EpochRef  # its value as a term (a constant, or a term over epochs)


@dataclass(frozen=True, slots=True)
class TimeT:
    time: int


@dataclass(frozen=True, slots=True)
class BoolT:
    formula: Formula = TRUE


@dataclass(frozen=True, slots=True)
class NoValue:
    """The result of a statement operation (restore, save, ...): nothing to bind."""

    op: str


@dataclass(frozen=True, slots=True)
class Unknown:
    """The type of an expression whose error has already been reported (absorbs cascades)."""


FitoType = Snap | Product | Conv | EpochT | IntT | TimeT | BoolT | NoValue | Unknown
STATE_TYPES = (Snap, Product, Conv)
UNKNOWN = Unknown()


def show(t: FitoType) -> str:
    """The type as users read it: `Snap(gpu, t1)`, `Snap(gpu, t1) x Snap(nvme, t2)`, ..."""
    if isinstance(t, Snap):
        return f"Snap({t.domain}, t{t.time})"
    if isinstance(t, Product):
        return " x ".join(show(p) for p in t.parts)
    if isinstance(t, Conv):
        return f"Conv({t.protocol}, {t.epoch.text})"
    if isinstance(t, EpochT):
        return "Epoch"
    if isinstance(t, IntT):
        return "Int"
    if isinstance(t, TimeT):
        return "Time"
    if isinstance(t, BoolT):
        return "Bool"
    if isinstance(t, NoValue):
        return "no value"
    return "<error>"


def describe(t: FitoType) -> str:
    """The type with what users need to know about it (epoch metadata, times)."""
    if isinstance(t, Snap):
        meta = f" of epoch {t.epoch.text}" if t.epoch is not None else " without epoch metadata"
        return f"a snapshot {show(t)}{meta}"
    if isinstance(t, Product):
        order = " < ".join(f"t{p.time}" for p in t.parts)
        return f"a product of snapshots {show(t)} taken at different times ({order})"
    if isinstance(t, Conv):
        return f"a converged state {show(t)}"
    if isinstance(t, EpochT):
        return f"an Epoch ({t.epoch.text})"
    if isinstance(t, IntT):
        return f"an Int ({t.epoch.text})"
    if isinstance(t, TimeT):
        return f"a Time (t{t.time})"
    if isinstance(t, BoolT):
        return "a Bool"
    if isinstance(t, NoValue):
        return f"{t.op}(...), which has no value"
    return "an erroneous value"


def reveal_text(t: FitoType) -> str:
    """The type with its epoch: `Snap(gpu, t1) @ e1`, `Conv(P, e)`, `Epoch (e1 + 1)`."""
    if isinstance(t, Snap):
        return show(t) + (f" @ {t.epoch.text}" if t.epoch is not None else "")
    if isinstance(t, Product):
        meta = t.parts[0].epoch
        return show(t) + (f" @ {meta.text}" if meta is not None else "")
    if isinstance(t, (EpochT, IntT)):
        return f"{show(t)} ({t.epoch.text})"
    return show(t)


def is_state(t: FitoType) -> bool:
    return isinstance(t, STATE_TYPES)


def number_term(t: FitoType) -> EpochRef | None:
    """The integer term of an Epoch or Int value."""
    if isinstance(t, (EpochT, IntT)):
        return t.epoch
    return None
