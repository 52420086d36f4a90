"""The builder's rules for sets of events, renaming, the committing choice and steps (a
mixin of `fito.lang.build.terms.Builder`).

Sets of events (`{| c.0 |}`, `{c.0.1, d}`, `Events`), renaming (`P[[a <- b]]`), the
committing choice `if :: ... fi`, `assert(b)` and `atomic { }` steps with their statement
blocks, loop assignments (`forall j: T @ x[j] := 0`) and `let`.
"""

from __future__ import annotations

from typing import Any

from fito.diagnostics import Span
from fito.lang import nodes as A
from fito.lang.build.parts import (
    Assigned,
    EventParts,
    StepHead,
    channel_array,
    make_span,
    span_of,
    tok_span,
)

_SET_HINT = "write {| c |} for every event of channel c, {c.0} for one event, or Events"


class CompoundReductions:
    """Reductions of sets of events, renaming, the committing choice, steps and statement
    blocks; relies on the term rules of `Builder`."""

    def err(self, message: str, span: Span, hint: str | None = None, code: str = "T001") -> None:
        raise NotImplementedError

    def as_expr(self, x: Any) -> A.Expr:
        raise NotImplementedError

    def as_proc(self, x: Any) -> A.Proc:
        raise NotImplementedError

    def _as_target(self, x: Any) -> A.Expr:
        raise NotImplementedError

    # ---------------------------------------------------------------- sets of events
    def as_event_set(self, x: Any, what: str) -> A.EventSet:
        """x as a set of events; `{}` is the empty set; anything else is an error."""
        if type(x) is A.EventSet:
            return x
        if type(x) is Assigned and x.event is None and not x.assigns:
            return A.EventSet("events", (), span=x.span)
        hint = _SET_HINT
        if type(x) is A.Name:
            hint = (
                f"write the set out: {{| {x.id} |}} for every event of channel {x.id}, or "
                f"{{{x.id}}}; fito has no named sets"
            )
        elif type(x) is A.Call and x.func in ("union", "Union", "diff", "inter"):
            hint = f"CSPm's {x.func}(...) is written as one set: {{| a, b |}} or {{a.0, b}}"
        self.err(f"{what} needs a set of events", span_of(x), hint=hint)
        return A.EventSet("events", (), span=span_of(x))

    def set_item(self, x: Any) -> A.Event:
        """An item of a set or a renaming: a channel, or an event whose fields are values."""
        if type(x) is A.Name:
            return A.Event(x.id, (), span=x.span)
        if type(x) is A.Index:
            x = channel_array(x) or x
        if type(x) is EventParts:
            event = x.finish()
            if any(isinstance(f, A.InField) for f in event.fields):
                self.err(
                    "an input `?x` cannot stand in a set of events",
                    event.span,
                    hint="name the values: {| c.0 |}, or the whole channel: {| c |}",
                )
            return event
        self.err("a set of events lists channels and events (c, c.0.1)", span_of(x), hint=_SET_HINT)
        return A.Event(A.ERROR_NAME, (), span=span_of(x))

    def event_set(self, c: list[Any]) -> A.EventSet:
        items = tuple(self.set_item(x) for x in c[1])
        return A.EventSet("events", items, span=make_span(tok_span(c[0]), tok_span(c[-1])))

    def all_events(self, c: list[Any]) -> A.EventSet:
        return A.EventSet("all", (), span=tok_span(c[0]))

    def rename(self, c: list[Any]) -> A.Rename:
        proc = self.as_proc(c[0])
        return A.Rename(proc, tuple(c[2:-2:2]), span=make_span(proc.span, tok_span(c[-1])))

    def rename_pair(self, c: list[Any]) -> A.RenamePair:
        source, target = self.set_item(c[0]), self.set_item(c[2])
        return A.RenamePair(source, target, span=make_span(source.span, target.span))

    # ---------------------------------------------------------------- committing choice
    def select(self, c: list[Any]) -> A.Select:
        branches: list[A.Proc] = []
        orelse: A.Proc | None = None
        for kind, proc, span in c[1:-1]:
            if orelse is not None:
                self.err("the `else` branch must be the last one", span)
            if kind == "else":
                orelse = proc
            else:
                branches.append(proc)
        if not branches:
            self.err("`if :: ... fi` needs a branch besides `else`", tok_span(c[0]))
        return A.Select(tuple(branches), orelse, span=make_span(tok_span(c[0]), tok_span(c[-1])))

    def select_branch(self, c: list[Any]) -> tuple[str, A.Proc, Span]:
        proc = self.as_proc(c[1])
        return "branch", proc, make_span(tok_span(c[0]), proc.span)

    def else_branch(self, c: list[Any]) -> tuple[str, A.Proc, Span]:
        proc = self.as_proc(c[3])
        return "else", proc, make_span(tok_span(c[0]), proc.span)

    # ---------------------------------------------------------------- steps
    def assert_head(self, c: list[Any]) -> StepHead:
        return StepHead(self.as_expr(c[2]), None, make_span(tok_span(c[0]), tok_span(c[3])))

    def atomic_head(self, c: list[Any]) -> StepHead:
        stmts = tuple(c[2:-1:2]) if c[2] is not None else ()
        return StepHead(None, stmts, make_span(tok_span(c[0]), tok_span(c[-1])))

    def step(self, head: StepHead, body: A.Proc, span: Span) -> A.Proc:
        """`assert(b) -> P` or `atomic { ... } -> P`."""
        if head.stmts is None:
            assert head.cond is not None
            return A.AssertStep(head.cond, body, span=span)
        return A.Atomic(head.stmts, body, span=span)

    def block(self, c: list[Any]) -> tuple[A.Statement, ...]:
        return tuple(c[1:-1:2]) if c[1] is not None else ()

    def block_if(self, c: list[Any]) -> A.BlockIf:
        cond = self.as_expr(c[1])
        then, orelse = c[3], c[5] if c[5] is not None else ()
        return A.BlockIf(cond, then, orelse, span=make_span(tok_span(c[0]), cond.span))

    def block_assert(self, c: list[Any]) -> A.BlockAssert:
        return A.BlockAssert(self.as_expr(c[2]), span=make_span(tok_span(c[0]), tok_span(c[3])))

    def assign_loop(self, c: list[Any]) -> A.Assignment:
        body: A.Assignment = c[3]
        start = tok_span(c[0])
        for b in reversed(c[1]):
            body = A.AssignLoop(b.var, b.domain, body, span=make_span(start, body.span))
        return body

    # ---------------------------------------------------------------- expressions
    def let_(self, c: list[Any]) -> A.Let:
        value, body = self.as_expr(c[3]), self.as_expr(c[5])
        return A.Let(c[1][1], value, body, span=make_span(tok_span(c[0]), body.span))
