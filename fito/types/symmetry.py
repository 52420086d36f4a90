"""Proving a `symmetric type` declaration sound before a search uses it (docs/reductions.md).

A type D declared `symmetric type D = {...}` (or a range) promises that its members are
interchangeable: every permutation of D maps reachable states to reachable states, runs to
runs, and the property to itself. The symmetry reduction (fito/check/reduce/) then keeps
one state per orbit, the one whose per-member blocks of cells are sorted.

The proof is syntactic and conservative (a whitelist): every value of D in the model must
come from a binder over D (`[] i: D @`, `forall i: D @`, `exists`, an input `c?x` on a field
of type D, `forall j: D @ a[j] := e`), and may only

- index a cell on a dimension of type D (`p[i]`),
- be compared with `==` or `!=` with another value of D,
- be an event field of type D (`persist.i`),
- be read in the step that binds it (a choice `[] i: D @` whose branches start with an
  event, the event's assignments and guards), never by the process after that step.

Everything else is refused with a diagnostic naming the offending use: a member written as
a constant (T201), an order comparison, arithmetic or another use of a member's value
(T202), a cell whose initial value depends on its index of type D (T203), and the forms the
reduction does not permute (T204, a warning: cells holding members, process parameters of
type D, replicated parallel over D, buffered channels and local variables indexed by D, a
member kept by a process after a step). An assertion whose property or process singles out a
member is checked without symmetry, with warning T205; `eventually` and refinement are
checked without symmetry (a note in the report).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from fito.diagnostics import Diagnostic, Span, error, warning
from fito.lang import nodes as A
from fito.lang.resolve.model import Model

SYMMETRIC_KINDS = ("deadlock", "always", "reaches")  # the assertions symmetry preserves

_LIVE, _DEAD, _INIT = "live", "dead", "init"  # how a bound name of D may be read
_REFUSED = "refused"  # a parameter of D, already refused: its uses add nothing


@dataclass(frozen=True, slots=True)
class Bound:
    """A bound name of a symmetric type: readable (live), kept after a step (dead: reading
    it is refused) or a cell's index in its initializer (init)."""

    type: str
    how: str
    where: Span


Scope = Mapping[str, Bound | None]  # bound names: of a symmetric type, or of another


@dataclass(frozen=True, slots=True)
class SymmetryProof:
    """What the checker proved: the declared symmetric types, those proved sound, the
    diagnostics of the others, and per assertion (by its index) why it cannot use them."""

    declared: tuple[str, ...]
    sound: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]
    refused: Mapping[int, str] = field(default_factory=dict)  # assertion index -> reason

    def for_assertion(self, n: int, kind: str) -> tuple[tuple[str, ...], str | None]:
        """The symmetric types assertion n may be checked under, and why not when none."""
        if not self.sound:
            return (), None
        if kind not in SYMMETRIC_KINDS:
            return (), f"symmetry off: not proved sound for `{kind}` properties"
        if n in self.refused:
            return (), self.refused[n]
        return self.sound, None


def prove(model: Model) -> SymmetryProof:
    """The proof (or the refusals) of every `symmetric type` of the model."""
    declared = tuple(d.name for d in model.spec.decls if isinstance(d, A.TypeDecl) and d.symmetric)
    if not declared:
        return SymmetryProof((), (), ())
    walker = _Walker(model, frozenset(declared))
    walker.model_level()
    bad = {t for t, _ in walker.found}
    sound = tuple(t for t in declared if t not in bad)
    diags = [d for _, d in walker.found]
    refused: dict[int, str] = {}
    w = _Walker(model, frozenset(sound)) if sound else None  # its tables: built once
    for n, a in enumerate(model.assertions):
        if a.kind not in SYMMETRIC_KINDS or w is None:
            continue
        w.found, w._seen = [], set()  # each assertion's own findings
        w.assertion(a)
        if w.found:
            first = w.found[0][1]
            refused[n] = f"symmetry off: the assertion is not symmetric ({first.message})"
            diags.append(
                warning(
                    "T205",
                    f"{first.message}; this assertion is checked without symmetry",
                    first.span,
                )
            )
    return SymmetryProof(declared, sound, tuple(diags), refused)


class _Walker:
    """One pass over the declarations (or one assertion), noting every offending use."""

    def __init__(self, model: Model, types: frozenset[str]) -> None:
        self.model = model
        self.types = types
        self.found: list[tuple[str, Diagnostic]] = []
        self._seen: set[tuple[int, int]] = set()
        self.members: dict[str, str] = {}  # member name -> its symmetric type
        self.cell_dims: dict[str, tuple[str | None, ...]] = {}  # cell -> symmetric type per index
        self.chan_fields: dict[str, tuple[str | None, ...]] = {}
        self.consts: set[str] = set()
        self.locals: set[str] = set()  # process variables (they shadow cells of that name)
        for d in model.spec.decls:
            if isinstance(d, A.TypeDecl) and d.name in types and isinstance(d.rhs, A.SetType):
                for item in d.rhs.items:
                    if isinstance(item, A.Name):
                        self.members[item.id] = d.name
            elif isinstance(d, A.DomainDecl):
                self.cell_dims[d.name] = tuple(self._named(p.type) for p in d.indices)
            elif isinstance(d, A.ChannelDecl):
                kinds = tuple(self._named(t) for t in (*d.indices, *d.fields))
                for name in d.names:
                    self.chan_fields[name] = kinds
            elif isinstance(d, A.ConstDecl):
                self.consts.add(d.name)
            elif isinstance(d, A.ProcessDecl):
                self.locals.update(v.name for v in d.locals)

    def _named(self, t: A.TypeExpr | None) -> str | None:
        return t.name if isinstance(t, A.TypeName) and t.name in self.types else None

    def _refuse(self, t: str, code: str, message: str, span: Span, hint: str | None = None) -> None:
        at = (span.line, span.column)
        if at in self._seen:  # one diagnostic per offending use
            return
        self._seen.add(at)
        # a false declaration is an error; one the reduction cannot use yet is a warning
        make = warning if code == "T204" else error
        self.found.append((t, make(code, message, span, hint=hint)))

    def _any_type(self) -> str:
        return sorted(self.types)[0]

    # ------------------------------------------------------------------ declarations
    def model_level(self) -> None:
        for d in self.model.spec.decls:
            if isinstance(d, A.TypeDecl):
                if d.name in self.types:
                    if not isinstance(d.rhs, (A.SetType, A.RangeType)):
                        self._refuse(
                            d.name,
                            "T204",
                            f"symmetric type {d.name} must be an enumeration or a range",
                            d.span,
                        )
                    elif isinstance(d.rhs, A.RangeType):
                        self.plain(d.rhs.lo, {}, "a range bound")
                        self.plain(d.rhs.hi, {}, "a range bound")
                else:
                    self.type_expr(d.rhs, {})
            elif isinstance(d, A.ConstDecl):
                self.plain(d.value, {}, f"constant {d.name}")
            elif isinstance(d, A.DomainDecl):
                self.domain(d)
            elif isinstance(d, A.ChannelDecl):
                self.channel(d)
            elif isinstance(d, A.ProcessDecl):
                self.process(d)
            elif isinstance(d, A.FunDecl):
                scope: dict[str, Bound | None] = {}
                for p in d.params:
                    t = self._named(p.type)
                    if t is not None:
                        self._refuse(
                            t,
                            "T204",
                            f"function {d.name} takes a parameter of symmetric type {t}",
                            p.span,
                        )
                    scope[p.name] = None if t is None else Bound(t, _REFUSED, p.span)
                self.plain(d.body, scope, f"function {d.name}")
            elif isinstance(d, A.SystemDecl):
                self.proc(d.proc, {}, False)

    def assertion(self, a: A.AssertDecl) -> None:
        if a.proc is not None:
            self.proc(a.proc, {}, False)
        if a.expr is not None:
            self.plain(a.expr, {}, "the property")

    def domain(self, d: A.DomainDecl) -> None:
        dims = self.cell_dims[d.name]
        scope: dict[str, Bound | None] = {}
        for t in set(x for x in dims if x is not None):
            if dims.count(t) > 1:
                self._refuse(
                    t,
                    "T204",
                    f"cell {d.name} is indexed twice by symmetric type {t} (not supported yet)",
                    d.span,
                )
        kinds = sorted(set(x for x in dims if x is not None))
        for later in kinds[1:]:
            self._refuse(
                later,
                "T204",
                f"cell {d.name} is indexed by two symmetric types ({kinds[0]} and {later}): "
                "not supported yet",
                d.span,
            )
        for p, dim in zip(d.indices, dims):
            scope[p.name] = None if dim is None else Bound(dim, _INIT, p.span)
            if dim is None:
                self.type_expr(p.type, {})
        held = self._named(d.type)
        if held is not None:
            self._refuse(
                held,
                "T204",
                f"cell {d.name} holds a member of symmetric type {held} (not supported yet)",
                d.type.span,
            )
        else:
            self.type_expr(d.type, {})
        self.plain(d.init, scope, f"the initial value of {d.name}")

    def channel(self, d: A.ChannelDecl) -> None:
        kinds = tuple(self._named(t) for t in (*d.indices, *d.fields))
        for t, expr in zip(kinds, (*d.indices, *d.fields)):
            if t is not None and d.buffer is not None:
                self._refuse(
                    t,
                    "T204",
                    f"buffered channel {', '.join(d.names)} carries or is indexed by "
                    f"symmetric type {t} (not supported yet)",
                    d.span,
                )
            if t is None:
                self.type_expr(expr, {})
        if d.buffer is not None:
            self.plain(d.buffer, {}, "a buffer size")

    def process(self, d: A.ProcessDecl) -> None:
        scope: dict[str, Bound | None] = {}
        for p in d.params:
            t = self._named(p.type)
            if t is not None:
                self._refuse(
                    t,
                    "T204",
                    f"process {d.name} takes a parameter of symmetric type {t}: a process that "
                    "holds a member is not supported yet",
                    p.span,
                    hint=f"where the processes keep no control state of their own, one "
                    f"process offering `[] {p.name}: {t} @ ...` behaves the same and is reduced",
                )
            else:
                self.type_expr(p.type, {})
            scope[p.name] = None if t is None else Bound(t, _REFUSED, p.span)
        for v in d.locals:
            t = self._named(v.type) or next(
                (x for x in (self._named(i.type) for i in v.indices) if x), None
            )
            if t is not None:
                self._refuse(
                    t,
                    "T204",
                    f"variable {v.name} of process {d.name} holds or is indexed by symmetric "
                    f"type {t} (not supported yet)",
                    v.span,
                )
            inner = dict(scope)
            for i in v.indices:
                inner[i.name] = None
            self.plain(v.init, inner, f"the initial value of {v.name}")
        self.proc(d.body, scope, False)

    def type_expr(self, t: A.TypeExpr | None, scope: Scope) -> str | None:
        """A binder's domain: the symmetric type it ranges over, or None (its members are
        checked like any expression)."""
        if t is None:
            return None
        if isinstance(t, A.TypeName):
            return t.name if t.name in self.types else None
        if isinstance(t, A.RangeType):
            self.plain(t.lo, scope, "a range bound")
            self.plain(t.hi, scope, "a range bound")
        elif isinstance(t, A.SetType):
            for item in t.items:
                self.plain(item, scope, "a set")
        return None

    # ------------------------------------------------------------------ expressions
    def plain(self, e: object, scope: Scope, where: str) -> None:
        """An expression whose value must not be a member of a symmetric type."""
        t = self.value(e, scope)
        if t is not None and isinstance(e, A.Name):
            self._refuse(
                t,
                "T202",
                f"`{e.id}`, a member of symmetric type {t}, is used in {where}: only as an "
                f"index of a cell over {t}, an event field of type {t} or with == and !=",
                e.span,
            )

    def value(self, e: object, scope: Scope) -> str | None:
        """Check e; the symmetric type of its value when it is a bound name of one."""
        if isinstance(e, A.Name):
            if e.id in scope:
                b = scope[e.id]
                if b is None:
                    return None
                if b.how == _DEAD:
                    self._refuse(
                        b.type,
                        "T204",
                        f"`{e.id}` (a member of symmetric type {b.type}) is kept after the step "
                        "that chose it: a process that remembers a member is not supported yet",
                        e.span,
                    )
                    return None
                if b.how == _REFUSED:
                    return b.type
                if b.how == _INIT:
                    self._refuse(
                        b.type,
                        "T203",
                        f"the initial value depends on `{e.id}`, an index of symmetric type "
                        f"{b.type}: not every member starts alike",
                        e.span,
                    )
                    return None
                return b.type
            whole = [x for x in self.cell_dims.get(e.id, ()) if x is not None]
            if whole and e.id not in self.locals:
                self._refuse(
                    whole[0],
                    "T204",
                    f"the array {e.id} over symmetric type {whole[0]} is used whole (only its "
                    "elements, or a copy to an array of the same shape, are supported)",
                    e.span,
                )
                return None
            if e.id in self.members:
                t = self.members[e.id]
                self._refuse(
                    t,
                    "T201",
                    f"member `{e.id}` of symmetric type {t} is singled out by name",
                    e.span,
                )
            return None
        if isinstance(e, A.Index):
            self.index(e, scope)
            return None
        if isinstance(e, A.Binary):
            if e.op in ("==", "!="):
                lt, rt = self.value(e.left, scope), self.value(e.right, scope)
                if lt != rt:
                    either = lt or rt
                    assert either is not None
                    self._refuse(
                        either,
                        "T202",
                        f"a member of symmetric type {either} is compared with `{e.op}` to a value "
                        f"that is not a member of {either} bound by a quantifier or a choice",
                        e.span,
                    )
                return None
            what = "an order comparison" if e.op in ("<", "<=", ">", ">=") else "arithmetic"
            if e.op in ("and", "or", "=>"):
                what = "a Boolean operator"
            self.plain(e.left, scope, f"{what} (`{e.op}`)")
            self.plain(e.right, scope, f"{what} (`{e.op}`)")
            return None
        if isinstance(e, A.Quant):
            over = self.type_expr(e.domain, scope)
            inner = dict(scope)
            inner[e.var] = None if over is None else Bound(over, _LIVE, e.span)
            self.plain(e.body, inner, f"the body of `{e.kind}`")
            return None
        if isinstance(e, A.Let):
            bound = self.value(e.value, scope)
            inner = dict(scope)
            inner[e.var] = None if bound is None else Bound(bound, _LIVE, e.span)
            self.plain(e.body, inner, "the body of `let`")
            return None
        if isinstance(e, A.Call):
            for arg in e.args:
                self.plain(arg, scope, f"a call of `{e.func}`")
            return None
        if isinstance(e, A.Unary):
            self.plain(e.operand, scope, f"`{e.op}`")
            return None
        if isinstance(e, A.IfExpr):
            self.plain(e.cond, scope, "a condition")
            self.plain(e.then, scope, "the value of `if`")
            self.plain(e.orelse, scope, "the value of `if`")
            return None
        self.generic(e, scope)
        return None

    def index(self, e: A.Index, scope: Scope) -> None:
        chain: list[A.Expr] = []
        root: object = e
        while isinstance(root, A.Index):
            chain.append(root.index)
            root = root.base
        chain.reverse()
        dims: tuple[str | None, ...] = ()
        if isinstance(root, A.Name) and root.id not in scope and root.id not in self.locals:
            dims = self.cell_dims.get(root.id, ())  # (a process variable shadows a cell)
        else:
            self.plain(root, scope, "an indexed value")
        rest = [x for x in dims[len(chain) :] if x is not None]
        if rest and isinstance(root, A.Name):
            self._refuse(
                rest[0],
                "T204",
                f"part of the array {root.id} over symmetric type {rest[0]} is used whole "
                "(only its elements are supported)",
                e.span,
            )
        for k, idx in enumerate(chain):
            want = dims[k] if k < len(dims) else None
            if want is None:
                self.plain(idx, scope, "an index of a dimension of another type")
                continue
            got = self.value(idx, scope)
            if got != want:
                name = root.id if isinstance(root, A.Name) else "an array"
                code = "T201" if isinstance(idx, (A.IntLit, A.Name)) and got is None else "T202"
                self._refuse(
                    want,
                    code,
                    f"cell {name} is indexed on its dimension of symmetric type {want} by an "
                    f"expression that is not a member bound by a quantifier or a choice",
                    getattr(idx, "span", e.span),
                )

    def generic(self, node: object, scope: Scope) -> None:
        """A form the proof has no rule for: any use of a symmetric type in it is refused."""
        for child in _children(node):
            if isinstance(child, A.TypeName) and child.name in self.types:
                self._refuse(
                    child.name,
                    "T204",
                    f"symmetric type {child.name} is used in a form the symmetry "
                    "reduction does not support yet",
                    child.span,
                )
            elif isinstance(child, A.Name):
                self.plain(child, scope, "this form")
            elif isinstance(child, A.Event):
                self.event(child, scope, {})
            elif dataclasses.is_dataclass(child):
                self.value(child, scope)

    # ------------------------------------------------------------------ events and steps
    def event(self, ev: A.Event, scope: Scope, binds: dict[str, Bound | None]) -> None:
        """An event's fields; the names its inputs bind go into `binds`."""
        kinds = self.chan_fields.get(ev.channel, ())
        for k, f in enumerate(ev.fields):
            want = kinds[k] if k < len(kinds) else None
            if isinstance(f, A.InField):
                t = want
                if f.restriction is not None:
                    got = self.type_expr(f.restriction, scope)
                    if want is not None and got != want and not _is_type(f.restriction, want):
                        self._refuse(
                            want,
                            "T201",
                            f"the input `{f.var}` of channel {ev.channel} is restricted to some "
                            f"members of symmetric type {want}",
                            f.span,
                        )
                binds[f.var] = None if t is None else Bound(t, _LIVE, f.span)
                continue
            v = f.value
            if want is None:
                self.plain(v, scope, f"a field of channel {ev.channel}")
                continue
            got = self.value(v, scope)
            if got != want:
                self._refuse(
                    want,
                    "T201" if got is None else "T202",
                    f"field {k + 1} of channel {ev.channel} (of symmetric type {want}) is not a "
                    "member bound by a quantifier or a choice",
                    getattr(v, "span", ev.span),
                )

    def assigns(self, items: tuple[object, ...], scope: Scope) -> None:
        for a in items:
            if isinstance(a, A.Assign):
                t, v = a.target, a.value
                if (
                    isinstance(t, A.Name)
                    and isinstance(v, A.Name)
                    and t.id in self.cell_dims
                    and v.id in self.cell_dims
                    and self.cell_dims[t.id] == self.cell_dims[v.id]
                ):
                    continue  # a whole-array copy between arrays of the same shape
                if isinstance(t, A.Index):
                    self.index(t, scope)
                elif isinstance(t, A.Name):
                    self.value(t, scope)
                self.plain(v, scope, "an assigned value")
            elif isinstance(a, A.AssignLoop):
                over = self.type_expr(a.domain, scope)
                inner = dict(scope)
                inner[a.var] = None if over is None else Bound(over, _LIVE, a.span)
                self.assigns((a.body,), inner)
            elif isinstance(a, A.BlockIf):
                self.plain(a.cond, scope, "a condition")
                self.assigns(a.then, scope)
                self.assigns(a.orelse, scope)
            elif isinstance(a, A.BlockAssert):
                self.plain(a.cond, scope, "an assertion")
            else:
                self.generic(a, scope)

    # ------------------------------------------------------------------ processes
    def proc(self, p: object, scope: Scope, family: bool) -> None:
        """A process; `family`: it starts a branch of a choice over a symmetric type, whose
        first step must resolve the choice (an event)."""
        if isinstance(p, (A.Stop, A.Skip)):
            return
        if isinstance(p, A.ProcRef):
            for arg in p.args:
                held = scope.get(arg.id) if isinstance(arg, A.Name) else None
                if held is not None and held.how == _REFUSED:
                    continue  # the parameter itself is refused already
                t = self.value(arg, scope)
                if t is not None:
                    self._refuse(
                        t,
                        "T204",
                        f"a member of symmetric type {t} is passed to process {p.name}: a "
                        "process that holds a member is not supported yet",
                        getattr(arg, "span", p.span),
                    )
            return
        if isinstance(p, A.Prefix):
            binds: dict[str, Bound | None] = {}
            if p.event is not None:
                self.event(p.event, scope, binds)
                chan = self.model.channels.get(p.event.channel)
                if family and chan is not None and chan.buffered:
                    self._family_tau(scope, p.span, "a buffered event")
            elif family:
                self._family_tau(scope, p.span, "an internal step")
            inner = {**scope, **binds}
            self.assigns(p.assigns, inner)
            self.proc(p.body, _kill(inner), False)
            return
        if isinstance(p, A.Guard):
            self.plain(p.cond, scope, "a guard")
            self.proc(p.body, scope, family)
            return
        if isinstance(p, A.ProcIf):
            self.plain(p.cond, scope, "a condition")
            self.proc(p.then, scope, family)
            self.proc(p.orelse, scope, family)
            return
        if isinstance(p, A.ProcBinary) and p.op == "[]":
            self.proc(p.left, scope, family)
            self.proc(p.right, scope, family)
            return
        if isinstance(p, A.Replicated):
            t = self.type_expr(p.domain, scope)
            if p.sync is not None:
                self.event_set(p.sync, scope)
            if t is not None and p.op != "[]":
                self._refuse(
                    t,
                    "T204",
                    f"`{p.op} {p.var}: {t}` over a symmetric type is not supported yet (only "
                    f"the external choice `[] {p.var}: {t} @`)",
                    p.span,
                )
                return
            inner = dict(scope)
            inner[p.var] = None if t is None else Bound(t, _LIVE, p.span)
            if p.op == "[]":
                self.proc(p.body, inner, family or t is not None)
            else:
                if family:
                    self._family_tau(scope, p.span, f"`{p.op}`")
                self.proc(p.body, _kill(inner), False)
            return
        if isinstance(p, (A.Atomic, A.AssertStep, A.Select)):
            if family:
                self._family_tau(scope, p.span, "an internal step")
            if isinstance(p, A.Atomic):
                self.assigns(p.stmts, scope)
                self.proc(p.body, _kill(scope), False)
            elif isinstance(p, A.AssertStep):
                self.plain(p.cond, scope, "an assertion")
                self.proc(p.body, _kill(scope), False)
            else:
                for b in (*p.branches, *((p.orelse,) if p.orelse is not None else ())):
                    self.proc(b, _kill(scope), False)
            return
        # parallel, interleaving, internal choice, sequence, interrupt, hiding, renaming:
        # their parts are held in the term across steps
        if family:
            self._family_tau(scope, getattr(p, "span", A.Stop().span), "this operator")
        dead = _kill(scope)
        for child in _children(p):
            if isinstance(child, A.EventSet):
                self.event_set(child, dead)
            elif isinstance(child, A.RenamePair):
                self.event(child.source, dead, {})
                self.event(child.target, dead, {})
            elif _is_proc(child):
                self.proc(child, dead, False)
            elif dataclasses.is_dataclass(child):
                self.value(child, dead)

    def event_set(self, s: A.EventSet, scope: Scope) -> None:
        for ev in s.items:
            self.event(ev, scope, {})

    def _family_tau(self, scope: Scope, span: Span, what: str) -> None:
        live = [b.type for b in scope.values() if b is not None and b.how == _LIVE]
        t = live[0] if live else self._any_type()
        self._refuse(
            t,
            "T204",
            f"{what} starts a branch of a choice over symmetric type {t}: it does not resolve "
            "the choice, which then holds members (start each branch with an event)",
            span,
        )


def _kill(scope: Scope) -> dict[str, Bound | None]:
    """The scope after a step: the members it had are kept, and may not be read."""
    return {
        n: (b if b is None or b.how != _LIVE else Bound(b.type, _DEAD, b.where))
        for n, b in scope.items()
    }


def _is_type(t: A.TypeExpr, name: str) -> bool:
    return isinstance(t, A.TypeName) and t.name == name


_PROCS = tuple(
    c
    for c in (
        A.Stop,
        A.Skip,
        A.ProcRef,
        A.Prefix,
        A.Guard,
        A.ProcBinary,
        A.Parallel,
        A.Hide,
        A.ProcIf,
        A.Replicated,
        A.AssertStep,
        A.Atomic,
        A.Select,
        A.AlphaParallel,
        A.Rename,
    )
)


def _is_proc(x: object) -> bool:
    return isinstance(x, _PROCS)


def _children(node: object) -> Iterator[object]:
    """The AST values held by a node's fields (tuples flattened), spans left out."""
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        items = v if isinstance(v, tuple) else (v,)
        for x in items:
            if dataclasses.is_dataclass(x) and not isinstance(x, (Span, type)):
                yield x
