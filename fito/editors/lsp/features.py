"""What the language server knows about a spec, as plain functions of its text: the
diagnostics `fito check` prints, the type of the name under the cursor (cells with their
ranges, channels, epochs, Snap and Conv in pipelines), where a name is declared, and the
canonical form. Positions are 1-based (line, column in characters), as in fito's spans.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from fito.check.options import CheckOptions
from fito.check.result import Verdict
from fito.diagnostics import Diagnostic, Span
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_decl, print_type
from fito.lang.resolve.model import BoolT, EnumT, IntRange, Model, ValueType
from fito.lang.syntax.lexer import ScanError
from fito.lang.syntax.parser import machinery
from fito.pipeline import check, check_source
from fito.source import Source


@dataclass(frozen=True, slots=True)
class Analysis:
    """A spec's text, its model (None when it does not parse) and its diagnostics."""

    text: str
    model: Model | None
    diagnostics: tuple[Diagnostic, ...]


def analyse(text: str, type_check: bool = True) -> Analysis:
    """Parse, resolve and type-check (no model checking: that is `check_assertions`)."""
    checked = check(
        Source("<editor>", text),
        CheckOptions(model_check=False, type_check=type_check, timeout=2.0),
    )
    model = checked.front.model if checked.front is not None else None
    return Analysis(text, model, checked.report.diagnostics)


def check_assertions(text: str, timeout: float = 10.0) -> tuple[Verdict, ...]:
    """The verdicts of the spec's assertions (each bounded by timeout)."""
    report = check_source(
        Source("<editor>", text),
        CheckOptions(timeout=timeout, max_states=2_000_000, type_check=False),
    )
    return report.verdicts


def word_at(text: str, line: int, column: int) -> tuple[str, Span] | None:
    """The name (identifier token) at a position, with its span."""
    try:
        tokens = machinery().scanner.scan(text)
    except ScanError:
        return None
    keys = [(t[3], t[4]) for t in tokens]
    i = bisect.bisect_right(keys, (line, column)) - 1
    if i < 0:
        return None
    kind, value, offset, tline, tcol = tokens[i]
    if kind != "NAME" or tline != line or not tcol <= column <= tcol + len(value):
        return None
    return value, Span(tline, tcol, tline, tcol + len(value), offset, offset + len(value))


def _lookup(
    a: Analysis, line: int, column: int
) -> tuple[Model, str, Span, tuple[str, str, Span] | None] | None:
    """The model, the name under the cursor, its span, and what it is if a pipeline's local
    name."""
    found = word_at(a.text, line, column)
    if found is None or a.model is None:
        return None
    return a.model, found[0], found[1], _pipeline_local(a.model, found[0], found[1])


def hover(a: Analysis, line: int, column: int) -> str | None:
    """What the name under the cursor is, with its type, in Markdown."""
    found = _lookup(a, line, column)
    if found is None:
        return None
    model, name, span, local = found
    if local is not None:
        return f"```fito\n{name}: {local[0]}\n```\n(pipeline {local[1]})"
    bound = _bound_name(model, name, span)
    if bound is not None:
        return f"```fito\n{name}: {bound}\n```\n(bound in this declaration)"
    shown = _global(model, name)
    return None if shown is None else f"```fito\n{shown}\n```"


def definition(a: Analysis, line: int, column: int) -> Span | None:
    """Where the name under the cursor is declared."""
    found = _lookup(a, line, column)
    if found is None:
        return None
    model, name, _, local = found
    if local is not None:
        return local[2]
    for decl in model.spec.decls:
        got = _declares(decl, name)
        if got is not None:
            return got
    return None


def formatted(text: str) -> str | None:
    """The canonical form, or None when the text does not parse."""
    from fito.deep import run_deep  # lazy-import: only formatting loads the printer
    from fito.lang.printer.fmt import format_text  # lazy-import: only formatting loads the printer

    return run_deep(format_text, text).text


# ---------------------------------------------------------------------- names
def type_text(t: ValueType) -> str:
    """A value type as a reader wants it: `Epoch = 0..2`, `Dom = {gpu, host}`, `Bool`."""
    if isinstance(t, EnumT):
        return f"{t.name} = {{{', '.join(t.members)}}}"
    if isinstance(t, IntRange):
        return f"{t.lo}..{t.hi}"
    if isinstance(t, BoolT):
        return "Bool"
    return str(getattr(t, "kind", lambda: type(t).__name__)())


def _global(model: Model, name: str) -> str | None:
    m = model
    if name in m.cells:
        cell = m.cells[name]
        count = 1
        for t in cell.indices:
            count *= len(t.values())
        head = print_decl(cell.decl) if cell.decl is not None else f"domain {name}"
        ranges = [f"index {type_text(t)}" for t in cell.indices] + [f"value {type_text(cell.type)}"]
        cells = f"{count} cells, " if cell.indices else ""
        kind = "durable: kept by a crash" if cell.durable else "volatile: reset by a crash"
        return f"{head}\n-- {cells}{'; '.join(ranges)}; {kind}"
    if name in m.channels:
        ranges = [type_text(t) for t in m.channels[name].fields]
        chan = next(
            (d for d in m.spec.decls if isinstance(d, A.ChannelDecl) and name in d.names), None
        )
        written = ".".join(print_type(f, "chan") for f in chan.fields) if chan else ""
        head = f"channel {name}" + (f": {written}" if written else "")
        return head + (f"\n-- fields: {'; '.join(ranges)}" if ranges else "")
    if name in m.processes:
        decl = m.processes[name]
        params = ", ".join(f"{p.name}: {print_type(p.type)}" for p in decl.params)
        return f"process {name}" + (f"({params})" if params else "")
    if name in m.members:
        enum, index = m.members[name]
        return f"{name}: {enum.name} (member {index + 1} of {len(enum.members)})"
    if name in m.consts:
        vt, value = m.consts[name]
        return f"const {name}: {type_text(vt)} = {vt.show(value)}"
    if name in m.types:
        return (
            f"type {type_text(m.types[name])}"
            if isinstance(m.types[name], EnumT)
            else f"type {name} = {type_text(m.types[name])}"
        )
    return None


def _pipeline_local(model: Model, name: str, span: Span) -> tuple[str, str, Span] | None:
    """(type, pipeline, definition) of a pipeline's epoch or let name at span."""
    from fito.types import reveal_types  # lazy-import: fito.types loads z3 (for hovers only)

    pipe = next(
        (
            d
            for d in model.spec.decls
            if isinstance(d, A.PipelineDecl) and d.span.start <= span.start <= d.span.end
        ),
        None,
    )
    if pipe is None:
        return None
    for r in reveal_types(model):
        if r.pipeline == pipe.name and r.name == name:
            return r.type, pipe.name, r.span
    return None


def _bound_name(model: Model, name: str, span: Span) -> str | None:
    """The type of a parameter or binder of the process around span."""
    for decl in model.spec.decls:
        if isinstance(decl, A.ProcessDecl) and decl.span.start <= span.start <= decl.span.end:
            for p in decl.params:
                if p.name == name:
                    return print_type(p.type) + f" (parameter of {decl.name})"
            for node in _nodes(decl.body):
                if getattr(node, "var", None) == name and hasattr(node, "domain"):
                    return print_type(node.domain)
                if isinstance(node, A.InField) and node.var == name:
                    return "input" + (
                        "" if node.restriction is None else f" from {print_type(node.restriction)}"
                    )
    return None


def _nodes(root: object) -> list[object]:
    """Every node under root (iteratively)."""
    todo = [root]
    out: list[object] = []
    while todo:
        n = todo.pop()
        if isinstance(n, tuple):
            todo.extend(n)
        elif hasattr(n, "__dataclass_fields__"):
            out.append(n)
            todo.extend(getattr(n, f) for f in n.__dataclass_fields__ if "span" not in f)
    return out


def _declares(decl: A.Decl, name: str) -> Span | None:
    if isinstance(decl, (A.ConstDecl, A.TypeDecl, A.DomainDecl, A.ProcessDecl)):
        if decl.name == name:
            return decl.name_span if decl.name_span.line else decl.span
        if isinstance(decl, A.TypeDecl) and isinstance(decl.rhs, A.SetType):
            for item in decl.rhs.items:
                if isinstance(item, A.Name) and item.id == name:
                    return item.span
    if isinstance(decl, A.ChannelDecl) and name in decl.names:
        i = decl.names.index(name)
        return decl.name_spans[i] if i < len(decl.name_spans) else decl.span
    return None


__all__ = [
    "Analysis",
    "analyse",
    "check_assertions",
    "definition",
    "formatted",
    "hover",
    "type_text",
    "word_at",
]
