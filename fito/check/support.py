"""Which forms the model checker runs yet: a seam between the language and the engine.

The language has forms (issue 13) that the reference interpreter (`fito.check.reference`)
executes and the fast engine does not yet. `unsupported(model)` names the first one a model
uses, as diagnostic S003, so that `fito check` refuses the model cleanly (exit status 1)
instead of failing inside the engine. The engine rewrite (issue 12) deletes entries from
`_FORMS` as it gains each form, and this module with the last one.
"""
from __future__ import annotations

from collections.abc import Iterator

from fito.diagnostics import Diagnostic, Span, error
from fito.lang import nodes as A
from fito.lang.resolve import Model


class NotSupported(Exception):
    """A model the engine cannot run yet (a user-facing error carrying its diagnostic)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


#: node type -> how the diagnostic names the form
_FORMS: dict[type, str] = {
    A.AssertStep: "`assert(b) -> P` steps",
    A.Atomic: "`atomic { } -> P` steps",
    A.Select: "the committing choice `if :: ... fi`",
    A.AlphaParallel: "alphabetised parallel `P [A || B] Q`",
    A.Rename: "renaming `P [[a <- b]]`",
    A.Let: "`let x = e in e2`",
    A.AssignLoop: "assignment loops `forall j: T @ a[j] := e`",
    A.LocalVar: "process variables `var x: T = v`",
    A.FunDecl: "functions `fun f(x: T): U = e`",
}


def unsupported(model: Model) -> NotSupported | None:
    """The refusal for the first form of the model that the engine does not run, if any."""
    for form, span in _new_forms(model):
        return NotSupported(error(
            "S003", f"not supported by the model checker yet: {form}", span,
            hint="docs/semantics.md defines it and the reference interpreter runs it; the "
                 "compiled engine gains it with issue 12"))
    return None


def _new_forms(model: Model) -> Iterator[tuple[str, Span]]:
    for name, chan in model.channels.items():
        if chan.buffered:
            decl = next(d for d in model.spec.decls
                        if isinstance(d, A.ChannelDecl) and name in d.names)
            yield "buffered channels `channel q: T buffer N`", decl.span
    for node in _nodes(model.spec):
        kind = type(node)
        if kind in _FORMS:
            yield _FORMS[kind], node.span  # type: ignore[attr-defined]
        elif kind is A.Param and node.var:  # type: ignore[attr-defined]
            yield "`var` parameters", node.span  # type: ignore[attr-defined]
        elif kind is A.ProcBinary and node.op == "[>":  # type: ignore[attr-defined]
            yield "sliding choice `P [> Q`", node.span  # type: ignore[attr-defined]
        elif kind is A.Replicated and node.op == "||":  # type: ignore[attr-defined]
            yield "alphabetised parallel `|| x: T @ [A] P`", node.span  # type: ignore[attr-defined]
        elif kind is A.EventSet and not _plain_channels(node):  # type: ignore[arg-type]
            yield "sets of events other than `{| c, d |}`", node.span  # type: ignore[attr-defined]
        elif kind is A.Call and node.func in model.functions:  # type: ignore[attr-defined]
            yield "functions `fun f(x: T): U = e`", node.span  # type: ignore[attr-defined]
        elif kind is A.Assign and _whole_array(model, node):  # type: ignore[arg-type]
            yield "whole-array assignments `a := b`", node.span  # type: ignore[attr-defined]


def _plain_channels(s: A.EventSet) -> bool:
    return s.kind == "channels" and all(not e.fields for e in s.items)


def _whole_array(model: Model, a: A.Assign) -> bool:
    cell = model.cells.get(a.target.id) if isinstance(a.target, A.Name) else None
    return cell is not None and bool(cell.indices)


def _nodes(root: object) -> Iterator[object]:
    stack = [root]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(reversed(n))
        elif hasattr(n, "__dataclass_fields__"):
            yield n
            stack.extend(reversed([getattr(n, f) for f in n.__dataclass_fields__
                                   if f not in ("span", "name_span", "name_spans")]))
