"""What a process term makes the model checker enumerate or evaluate at once, checked before
it runs (docs/limits.md).

- A replicated operator (`[] v: T @ P`) has one operand per value of T, and the inputs of
  one event (`c?x?y`) one transition per combination of their values: more than
  `MAX_VALUES` is refused (S004 too-many-values), with the range named.
- Nested quantifiers (`forall x: T @ forall y: U @ ...`) enumerate the product of their
  domains on every evaluation: past `MAX_VALUES` combinations, S004 too.
- A constant argument of a process call that cannot be evaluated (`P(1 / 0)`) is T009: an
  error in the term of a `system` or an assertion, which the check starts from; elsewhere a
  warning (the call is a model error where it is reached).

The walk is iterative over every process-valued field of the AST's dataclasses (so every
process form of PROC_TYPES is walked), and it reports quietly: a type it cannot size has already
been reported by the static checks (fito.lang.resolve.processes).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from fito.diagnostics import Span, warning
from fito.lang import nodes as A
from fito.lang.build.parts import PROC_TYPES
from fito.lang.resolve.consteval import ConstError, NotConstant, evaluate
from fito.lang.resolve.model import BOOL, IntRange, ValueType, show_type, size

if TYPE_CHECKING:
    from fito.lang.resolve.resolver import Resolver

#: The most values the resolver enumerates (array cells, quantifier domains in constants),
#: and the most a replicated operator, an input or nested quantifiers may range over.
MAX_VALUES = 1_000_000


def check_costs(r: Resolver, p: A.Proc, scope: Mapping[str, object], initial: bool) -> None:
    """Report S004 and T009 (see the module) in the process term p."""
    bound = set(scope) | set(_binders(p))
    for node in _nodes(p):
        if isinstance(node, A.Replicated):
            dom = _quiet_type(r, node.domain)
            if dom is not None:
                _refuse(
                    r, [dom], node.domain.span, f"the replicated '{node.op}'", "use a smaller type"
                )
        elif isinstance(node, A.Prefix) and node.event is not None:
            _check_inputs(r, node.event)
        elif isinstance(node, A.ProcRef):
            _check_arguments(r, node, bound, initial)


def refuse_costly_nest(r: Resolver, e: A.Quant) -> None:
    """S004 where nested quantifiers first enumerate more than MAX_VALUES combinations: their
    cost is the product of the domains' sizes, on every evaluation."""
    doms = [d for d in r.quantifiers if d is not None]
    sizes = [size(d) or 1 for d in doms]
    product = 1
    for n in sizes[:-1]:
        product *= n
    if product > MAX_VALUES or not doms or product * sizes[-1] <= MAX_VALUES:
        return  # within the limit, or reported at an outer quantifier
    product *= sizes[-1]
    if len(doms) == 1:
        r.err(
            "T006",
            f"a quantifier needs a finite domain of at most {MAX_VALUES:,} values; "
            f"{show_type(doms[0])} has {product:,}",
            e.domain.span,
        )
        return
    over = ", ".join(show_type(d) for d in doms)
    r.err(
        "S004",
        f"{len(doms)} nested quantifiers over {over} enumerate {product:,} values, "
        f"more than {MAX_VALUES:,}",
        e.domain.span,
        hint="quantify over smaller types",
    )


def _nodes(p: A.Proc) -> Iterator[object]:
    """Every process node of the term (not the expressions inside it)."""
    work: list[object] = [p]
    while work:
        node = work.pop()
        yield node
        for name in getattr(node, "__dataclass_fields__", ()):
            value = getattr(node, name)
            if _is_proc(value):
                work.append(value)
            elif isinstance(value, tuple):
                work.extend(v for v in value if _is_proc(v))


def _is_proc(x: object) -> bool:
    return type(x) in PROC_TYPES


def _binders(p: A.Proc) -> Iterator[str]:
    """Names the term binds (inputs, replicated variables): not constants inside it."""
    for node in _nodes(p):
        if isinstance(node, A.Replicated):
            yield node.var
        elif isinstance(node, A.Prefix) and node.event is not None:
            yield from (f.var for f in node.event.fields if isinstance(f, A.InField))


def _check_inputs(r: Resolver, ev: A.Event) -> None:
    chan = r.channels.get(ev.channel)
    if chan is None or len(ev.fields) != len(chan.fields):
        return  # reported by the static checks
    types: list[ValueType] = []
    for f, field_type in zip(ev.fields, chan.fields):
        if isinstance(f, A.InField):
            t = field_type if f.restriction is None else _quiet_type(r, f.restriction)
            if t is None:
                return
            types.append(t)
    if types:
        _refuse(
            r,
            types,
            ev.span,
            f"the input of '{ev.channel}'",
            "restrict the input to a smaller set: c?x:T",
        )


def _check_arguments(r: Resolver, call: A.ProcRef, bound: set[str], initial: bool) -> None:
    for arg in call.args:
        failure = _const_failure(r, arg, bound)
        if failure is None:
            continue
        message = f"argument of '{call.name}': {failure.message}"
        if initial:
            r.err("T009", message, arg.span)
        else:
            r.diagnostics.append(
                warning(
                    "T009", message, arg.span, hint="this call is a model error where it is reached"
                )
            )


def _const_failure(r: Resolver, e: A.Expr, bound: set[str]) -> ConstError | None:
    """Why the constant expression e cannot be evaluated (1 / 0), or None."""
    if isinstance(e, (A.IntLit, A.Name)):
        return None

    def lookup(name: str, span: Span) -> int:
        entry = r.names.get(name)
        if name in bound or entry is None or entry[0] not in ("const", "member"):
            raise NotConstant(span)
        if entry[0] == "member":
            return r.members_of(name)[1]
        got = r.consts.get(name)
        if got is None:
            raise NotConstant(span)
        return got[1]

    try:
        evaluate(e, lookup)
    except ConstError as exc:
        return exc
    except NotConstant:
        pass
    return None


def _quiet_type(r: Resolver, t: A.TypeExpr) -> ValueType | None:
    """The type t denotes if it is already known or plainly constant; None (no report) else."""
    if isinstance(t, A.BoolType):
        return BOOL
    if isinstance(t, A.TypeName):
        return r.types.get(t.name)
    if isinstance(t, A.RangeType):
        lo, hi = (_quiet_int(r, x) for x in (t.lo, t.hi))
        return IntRange(lo, hi) if lo is not None and hi is not None and lo <= hi else None
    return None  # braces list their values: as many as the text has


def _quiet_int(r: Resolver, e: A.Expr) -> int | None:
    def lookup(name: str, span: Span) -> int:
        got = r.consts.get(name)
        if got is None:
            raise NotConstant(span)
        return got[1]

    try:
        return evaluate(e, lookup)
    except (NotConstant, ConstError):
        return None


def _refuse(r: Resolver, types: list[ValueType], span: Span, what: str, hint: str) -> None:
    product = 1
    for t in types:
        product *= size(t) or 1
    if product > MAX_VALUES:
        over = " x ".join(show_type(t) for t in types)
        r.err(
            "S004",
            f"{what} ranges over {over}: {product:,} values, more than {MAX_VALUES:,}",
            span,
            hint=hint,
        )
