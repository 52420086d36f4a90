"""Typing pipeline expressions: names, numbers and facts (linear integer arithmetic).

Numbers are `Epoch` when they involve an epoch, else `Int`; both carry their canonical term.
Comparisons and `and`/`or`/`not`/`=>`/`if` build `Bool` facts. Products of two non-constant
terms, and division by a non-constant, are outside linear arithmetic (T013).
"""

from __future__ import annotations

from fito.lang import nodes as A
from fito.types.context import Context
from fito.types.env import Binding, Global, kind_word
from fito.types.epochs import (
    FALSE,
    TRUE,
    Formula,
    Lin,
    compare,
    floor_div,
    floor_mod,
    ite_formula,
    ite_int,
    junction,
    negate,
)
from fito.types.kinds import (
    UNKNOWN,
    BoolT,
    EpochRef,
    EpochT,
    FitoType,
    IntT,
    NoValue,
    Unknown,
    describe,
    number_term,
    text,
)

_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_LOGIC = frozenset({"and", "or", "=>"})


def infer(ctx: Context, e: A.Expr) -> FitoType:
    """The FITO type of e (Unknown after an error, which has been reported)."""
    if isinstance(e, A.IntLit):
        return IntT(EpochRef(Lin.lit(e.value), str(e.value)))
    if isinstance(e, A.BoolLit):
        return BoolT(TRUE if e.value else FALSE)
    if isinstance(e, A.Name):
        return name_type(ctx, e)
    if isinstance(e, A.Call):
        return ctx.call_type(ctx, e, None)
    if isinstance(e, A.Unary):
        return _unary(ctx, e)
    if isinstance(e, A.Binary):
        return _binary(ctx, e)
    if isinstance(e, A.IfExpr):
        return _if(ctx, e)
    if isinstance(e, A.Quant):
        ctx.error(
            "T013",
            f"'{e.kind}' is not supported in a pipeline: epoch facts are "
            "quantifier-free linear integer arithmetic",
            e.span,
            hint="state the fact for the epochs you declared, e.g. `require e1 <= e2`",
        )
        return UNKNOWN
    if isinstance(e, A.Index):
        return _index(ctx, e)
    ctx.error(
        "T013",
        "this form is not supported in a pipeline: epoch facts are "  # let, ...
        "quantifier-free linear integer arithmetic",
        e.span,
    )
    return UNKNOWN


def name_type(ctx: Context, e: A.Name) -> FitoType:
    entry = ctx.scope.lookup(e.id)
    if entry is None:
        undefined(ctx, e, "epoch", "let")
        return UNKNOWN
    if isinstance(entry, Binding):
        t = entry.type
        if isinstance(t, (EpochT, IntT)) and entry.kind == "let":
            return type(t)(EpochRef(t.epoch.term, e.id))
        return t
    return _global_value(ctx, e, entry)


def _global_value(ctx: Context, e: A.Name, g: Global) -> FitoType:
    if g.kind == "const":
        consts = ctx.scope.consts
        if e.id not in consts:
            return UNKNOWN  # the resolver reported why it has no value
        vtype, value = consts[e.id]
        if vtype.kind() == "Bool":
            return BoolT(TRUE if value else FALSE)
        if vtype.kind() == "Int":
            return IntT(EpochRef(Lin.lit(value), e.id))
    hint = None
    if g.kind in ("member", "cell"):
        hint = (
            f"'{e.id}' names a domain: pass it to snapshot({e.id}), commit(P, e, {e.id}) "
            f"or save(x, {e.id})"
        )
    ctx.error("R004", f"'{e.id}' is {kind_word(g)}, not a pipeline value", e.span, hint=hint)
    return UNKNOWN


def undefined(ctx: Context, e: A.Name, *kinds: str) -> None:
    """R001 for a name that is not (yet) defined, with the most useful hint."""
    later = ctx.scope.later.get(e.id)
    hint: str | None
    if later is not None and later.start > e.span.start:
        hint = f"'{e.id}' is defined later, at line {later.line}: pipelines run top to bottom"
    else:
        close = ctx.scope.suggest(e.id, kinds)
        hint = (
            f"did you mean '{close}'?"
            if close
            else (f"declare an epoch with `epoch {e.id}` or bind a value with `let {e.id} = ...`")
        )
    ctx.error("R001", f"'{e.id}' is not defined", e.span, hint=hint)


def number(ctx: Context, e: A.Expr, what: str) -> EpochRef | None:
    """The term of an Epoch or Int expression; T001 (and None) for anything else."""
    t = infer(ctx, e)
    ref = number_term(t)
    if ref is None and not isinstance(t, Unknown):
        ctx.error(
            "T001", f"{what} must be an Epoch or an Int, but '{text(e)}' is {describe(t)}", e.span
        )
    return ref


def fact(ctx: Context, e: A.Expr, what: str) -> Formula | None:
    t = infer(ctx, e)
    if isinstance(t, BoolT):
        return t.formula
    if not isinstance(t, Unknown):
        ctx.error(
            "T001",
            f"{what} must be a Bool fact, but '{text(e)}' is {describe(t)}",
            e.span,
            hint="compare epochs, e.g. `e2 == e1 + 1`",
        )
    return None


def _number_type(ctx: Context, e: A.Expr, term: Lin, *operands: FitoType) -> FitoType:
    ref = EpochRef(term, expr=e)
    return EpochT(ref) if any(isinstance(o, EpochT) for o in operands) else IntT(ref)


def _unary(ctx: Context, e: A.Unary) -> FitoType:
    if e.op == "not":
        f = fact(ctx, e.operand, "the operand of 'not'")
        return UNKNOWN if f is None else BoolT(negate(f))
    operand = infer(ctx, e.operand)
    ref = number_term(operand)
    if ref is None:
        _not_a_number(ctx, e.operand, operand, "the operand of '-'")
        return UNKNOWN
    return _number_type(ctx, e, ref.term.scale(-1), operand)


def _not_a_number(ctx: Context, e: A.Expr, t: FitoType, what: str) -> None:
    if not isinstance(t, Unknown):
        ctx.error(
            "T001", f"{what} must be an Epoch or an Int, but '{text(e)}' is {describe(t)}", e.span
        )


def _binary(ctx: Context, e: A.Binary) -> FitoType:
    if e.op in _LOGIC:
        a = fact(ctx, e.left, f"the left operand of '{e.op}'")
        b = fact(ctx, e.right, f"the right operand of '{e.op}'")
        if a is None or b is None:
            return UNKNOWN
        if e.op == "=>":
            return BoolT(junction("or", [negate(a), b]))
        return BoolT(junction(e.op, [a, b]))
    left, right = infer(ctx, e.left), infer(ctx, e.right)
    if e.op in ("==", "!=") and isinstance(left, BoolT) and isinstance(right, BoolT):
        same = junction(
            "or",
            [
                junction("and", [left.formula, right.formula]),
                junction("and", [negate(left.formula), negate(right.formula)]),
            ],
        )
        return BoolT(same if e.op == "==" else negate(same))
    x, y = number_term(left), number_term(right)
    if x is None or y is None:
        if x is None:
            _not_a_number(ctx, e.left, left, f"the left operand of '{e.op}'")
        if y is None:
            _not_a_number(ctx, e.right, right, f"the right operand of '{e.op}'")
        return UNKNOWN
    if e.op in _COMPARISONS:
        return BoolT(compare(e.op, x.term, y.term))
    term = _arithmetic(ctx, e, x.term, y.term)
    return UNKNOWN if term is None else _number_type(ctx, e, term, left, right)


def _arithmetic(ctx: Context, e: A.Binary, a: Lin, b: Lin) -> Lin | None:
    if e.op == "+":
        return a.plus(b)
    if e.op == "-":
        return a.plus(b, -1)
    if e.op == "*":
        if a.is_const:
            return b.scale(a.const)
        if b.is_const:
            return a.scale(b.const)
        ctx.error(
            "T013",
            f"'{text(e)}' multiplies two epoch terms: epoch facts are linear integer arithmetic",
            e.span,
            hint="multiply by a constant only, e.g. `2 * e`",
        )
        return None
    if not b.is_const:
        ctx.error(
            "T013",
            f"'{text(e)}' divides by an epoch term: epoch facts are linear integer arithmetic",
            e.right.span,
            hint="divide by a constant only, e.g. `e / 2`",
        )
        return None
    if b.const == 0:
        ctx.error("T009", f"'{text(e)}' divides by zero", e.right.span)
        return None
    return floor_div(a, b.const) if e.op == "/" else floor_mod(a, b.const)


def _if(ctx: Context, e: A.IfExpr) -> FitoType:
    cond = fact(ctx, e.cond, "an if condition")
    a, b = infer(ctx, e.then), infer(ctx, e.orelse)
    if cond is None or isinstance(a, Unknown) or isinstance(b, Unknown):
        return UNKNOWN
    if isinstance(a, BoolT) and isinstance(b, BoolT):
        return BoolT(ite_formula(cond, a.formula, b.formula))
    ta, tb = number_term(a), number_term(b)
    if ta is not None and tb is not None:
        return _number_type(ctx, e, ite_int(cond, ta.term, tb.term), a, b)
    ctx.error(
        "T001",
        f"the branches of this if are {describe(a)} and {describe(b)}; in a "
        "pipeline `if` chooses between numbers or between facts",
        e.span,
        hint="a pipeline is straight-line: states cannot be chosen by a condition",
    )
    return UNKNOWN


def _index(ctx: Context, e: A.Index) -> FitoType:
    root = e.base
    while isinstance(root, A.Index):
        root = root.base
    what = f"'{text(e)}'"
    if isinstance(root, A.Name):
        entry = ctx.scope.lookup(root.id)
        if entry is None:
            undefined(ctx, root, "epoch", "let")
            return UNKNOWN
        what = f"'{root.id}' is {kind_word(entry)}, so {what}"
    ctx.error("R004", f"{what} is not a pipeline value: pipelines have no arrays", e.span)
    return UNKNOWN


def is_no_value(t: FitoType) -> bool:
    return isinstance(t, NoValue)
