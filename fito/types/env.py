"""One environment for processes and pipelines: the file's global names, then pipeline locals.

Globals come from the resolved model (constants, types, enumeration members, channels,
domain cells, processes, pipelines); a pipeline adds its epochs and `let` names in order.
A local may not reuse a global or an earlier local name (R002): in one environment a name
means one thing, so `snapshot(gpu)` can never silently read a variable called `gpu`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fito.diagnostics import NO_SPAN, Span
from fito.lang import nodes as A
from fito.lang.resolve.model import ValueType
from fito.types.kinds import FitoType

if TYPE_CHECKING:
    from fito.lang.resolve.model import Model


@dataclass(frozen=True, slots=True)
class Global:
    kind: str  # const, type, member, channel, cell, process, pipeline
    span: Span


KIND_WORDS = {
    "const": "a constant",
    "type": "a type",
    "member": "an enumeration member",
    "channel": "a channel",
    "cell": "a domain cell",
    "process": "a process",
    "pipeline": "a pipeline",
    "epoch": "an epoch",
    "let": "a let-bound variable",
}


def globals_of(model: Model) -> dict[str, Global]:
    """Every global name of the model, with its kind and where it is declared."""
    spec = model.spec
    members = model.members
    out: dict[str, Global] = {}

    def add(name: str, kind: str, span: Span) -> None:
        out.setdefault(name, Global(kind, span))

    for d in spec.decls:
        if isinstance(d, A.ConstDecl):
            add(d.name, "const", d.name_span)
        elif isinstance(d, A.TypeDecl):
            add(d.name, "type", d.name_span)
            if isinstance(d.rhs, A.SetType):
                for item in d.rhs.items:
                    if isinstance(item, A.Name) and item.id in members:
                        add(item.id, "member", item.span)
        elif isinstance(d, A.ChannelDecl):
            spans = d.name_spans or (d.span,) * len(d.names)
            for name, span in zip(d.names, spans):
                add(name, "channel", span)
        elif isinstance(d, A.DomainDecl):
            add(d.name, "cell", d.name_span)
        elif isinstance(d, A.ProcessDecl):
            add(d.name, "process", d.name_span)
        elif isinstance(d, A.PipelineDecl):
            add(d.name, "pipeline", d.name_span)
    add("crash", "channel", NO_SPAN)
    return out


@dataclass(frozen=True, slots=True)
class Binding:
    kind: str  # epoch or let
    type: FitoType
    span: Span


@dataclass(slots=True)
class Scope:
    """The locals of one pipeline, in the order they are defined."""

    globals: dict[str, Global]
    consts: Mapping[str, tuple[ValueType, int]] = field(default_factory=dict)
    dims: Mapping[str, int] = field(default_factory=dict)  # domain cell -> number of indices
    locals: dict[str, Binding] = field(default_factory=dict)
    later: dict[str, Span] = field(default_factory=dict)  # names defined further down

    def lookup(self, name: str) -> Binding | Global | None:
        return self.locals.get(name) or self.globals.get(name)

    def previous(self, name: str) -> Binding | Global | None:
        """What a new local called `name` would clash with."""
        return self.lookup(name)

    def suggest(self, name: str, kinds: Iterable[str]) -> str | None:
        """A close name of one of the given kinds (for did-you-mean hints)."""
        wanted = set(kinds)
        pool = [n for n, b in self.locals.items() if b.kind in wanted]
        pool += [n for n, g in self.globals.items() if g.kind in wanted]
        close = difflib.get_close_matches(name, sorted(pool), n=1, cutoff=0.6)
        return close[0] if close else None


def kind_word(entry: Binding | Global) -> str:
    return KIND_WORDS.get(entry.kind, entry.kind)


def definitions(stmts: Iterable[A.Stmt]) -> dict[str, Span]:
    """Where each local of a pipeline is (first) defined."""
    out: dict[str, Span] = {}
    for s in stmts:
        if isinstance(s, A.EpochStmt):
            spans = s.name_spans or (s.span,) * len(s.names)
            for n, sp in zip(s.names, spans):
                out.setdefault(n, sp)
        elif isinstance(s, A.LetStmt):
            out.setdefault(s.name, s.name_span)
    return out
