"""The canonical printer: AST -> text, with the fewest parentheses the grammar needs.

`parse(print_spec(spec)) == spec` (spans aside) is a tested property. Open forms
(if, forall, exists, replicated operators) are parenthesized whenever they stand as an
operand, which is always correct and keeps the printer simple.

Each node is laid out as a list of pieces (text, or a child with the binding level it must
have); an explicit stack turns pieces into text, so chains of any length and depth print
without recursion. `{` is never followed directly by `-` (that would open a comment).
"""

from __future__ import annotations

from collections.abc import Callable

from fito.lang import nodes as A
from fito.lang import temporal as T
from fito.lang.operators import LEVEL

_OPEN = 0
_UNARY = max(LEVEL.values()) + 1
_ATOM = 100
_INDENT = "  "

Node = A.Expr | A.Proc
Piece = str | tuple[Node, int]


def print_spec(spec: A.Spec) -> str:
    """The whole file, one declaration per line (pipelines span several)."""
    return "".join(print_decl(d) + "\n" for d in spec.decls)


def print_proc(p: A.Proc, min_level: int = 0) -> str:
    """A process term; parenthesized when it binds more loosely than min_level."""
    return _emit(p, min_level)


def print_expr(e: A.Expr, min_level: int = 0) -> str:
    """A value expression; parenthesized when it binds more loosely than min_level."""
    return _emit(e, min_level)


def _emit(root: Node, min_level: int) -> str:
    out: list[str] = []
    stack: list[Piece] = [(root, min_level)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node, need = item
        pieces, level = _LAYOUT[type(node)](node)
        if level < need:
            out.append("(")
            stack.append(")")
        stack.extend(reversed(pieces))
    return _no_comment_openers("".join(out))


def _no_comment_openers(text: str) -> str:
    return text.replace("{-", "{ -") if "{-" in text else text


# ---------------------------------------------------------------------- declarations
def print_decl(d: A.Decl) -> str:
    """One declaration (a pipeline spans several lines)."""
    if isinstance(d, A.ConstDecl):
        typ = f": {print_type(d.type)}" if d.type is not None else ""
        return f"const {d.name}{typ} = {print_expr(d.value)}"
    if isinstance(d, A.TypeDecl):
        keyword = "symmetric type" if d.symmetric else "type"
        return f"{keyword} {d.name} = {print_type(d.rhs)}"
    if isinstance(d, A.ChannelDecl):
        fields = ": " + ".".join(print_type(f, "chan") for f in d.fields) if d.fields else ""
        buffer = (
            ""
            if d.buffer is None
            else f" buffer {print_expr(d.buffer, 1)}{' durable' if d.durable else ''}"
        )
        dims = "".join(f"[{print_type(t)}]" for t in d.indices)
        return f"channel {', '.join(d.names)}{dims}{fields}{buffer}"
    if isinstance(d, A.DomainDecl):
        idx = "".join(f"[{p.name}: {print_type(p.type)}]" for p in d.indices)
        persistence = "durable" if d.durable else "volatile"
        return f"domain {d.name}{idx}: {print_type(d.type)} = {print_expr(d.init)} {persistence}"
    if isinstance(d, A.ProcessDecl):
        equals = f"\n{_INDENT}= " if d.locals else " = "
        return f"{process_head(d)}{equals}{print_proc(d.body)}"
    if isinstance(d, A.FunDecl):
        return (
            f"fun {d.name}({', '.join(_param(p) for p in d.params)}): "
            f"{print_type(d.result)} = {print_expr(d.body)}"
        )
    if isinstance(d, A.SystemDecl):
        return f"system {print_proc(d.proc)}"
    if isinstance(d, A.EndDecl):
        return "end " + ", ".join(d.names)
    if isinstance(d, A.AssertDecl):
        return "assert " + print_assertion(d)
    body = "".join(f"{_INDENT}{print_stmt(s)}\n" for s in d.stmts)
    return f"pipeline {d.name} {{\n{body}}}"


def process_head(d: A.ProcessDecl) -> str:
    """`process Name(x: T, ...)` and its local variables (one a line), without the body."""
    params = "(" + ", ".join(_param(p) for p in d.params) + ")" if d.params else ""
    return f"process {d.name}{params}" + "".join(f"\n{_INDENT}{_local(v)}" for v in d.locals)


def _param(p: A.Param) -> str:
    if not p.var:
        return f"{p.name}: {print_type(p.type)}"
    return f"var {p.name}: {print_type(p.type)}"


def _local(v: A.LocalVar) -> str:
    idx = "".join(f"[{p.name}: {print_type(p.type)}]" for p in v.indices)
    persistence = " durable" if v.durable else ""
    return f"var {v.name}{idx}: {print_type(v.type)} = {print_expr(v.init)}{persistence}"


def print_assertion(d: A.AssertDecl) -> str:
    """The assertion text after `assert` (also used to label verdicts)."""
    proc = print_proc(d.proc, 1) if d.proc is not None else None
    if d.kind == "deadlock":
        return f"{proc} :[deadlock free]" if proc else ":[deadlock free]"
    if d.kind in ("always", "eventually"):
        assert d.expr is not None
        head = f"{proc} |= " if proc else ""
        return f"{head}{d.kind} {print_expr(d.expr)}"
    if d.kind == "ltl":
        return print_ltl(d, proc)
    if d.kind == "reaches":
        assert d.expr is not None
        return f"{proc} reaches {print_expr(d.expr)}" if proc else f"reaches {print_expr(d.expr)}"
    assert d.kind == "refines" and d.spec is not None and d.proc is not None
    return f"{print_proc(d.spec, 1)} [T= {print_proc(d.proc)}"


def print_stmt(s: A.Stmt) -> str:
    """One pipeline statement."""
    if isinstance(s, A.EpochStmt):
        return "epoch " + ", ".join(s.names)
    if isinstance(s, A.RequireStmt):
        return "require " + print_expr(s.expr)
    if isinstance(s, A.LetStmt):
        at = f" @ {print_expr(s.at, 1)}" if s.at is not None else ""
        return f"let {s.name} = {print_expr(s.value, 1)}{at}"
    return f"{s.func}({', '.join(print_expr(a) for a in s.args)})"


# ---------------------------------------------------------------------- types
def print_type(t: A.TypeExpr, context: str = "type") -> str:
    """`context` is type (lo..hi), chan ((lo..hi)) or set ({lo..hi})."""
    if isinstance(t, A.TypeName):
        return t.name
    if isinstance(t, A.BoolType):
        return "Bool"
    if isinstance(t, A.IntType):
        return "Int" if t.lo is None else f"{print_expr(t.lo, 1)}..*"
    if isinstance(t, A.RangeType):
        inner = f"{print_expr(t.lo, 1)}..{print_expr(t.hi, 1)}"
        return {"type": inner, "chan": f"({inner})", "set": _braces(inner)}[context]
    return _braces(", ".join(print_expr(x) for x in t.items))


def _braces(inner: str) -> str:
    return f"{{ {inner}}}" if inner.startswith("-") else f"{{{inner}}}"


def print_event_set(s: A.EventSet) -> str:
    """`{| a, c.0 |}`, `{c.0.1, d}` or `Events`."""
    if s.kind == "all":
        return "Events"
    items = ", ".join(print_event(e) for e in s.items)
    if s.kind == "channels":
        return "{| " + items + " |}" if items else "{||}"
    return _braces(items)


print_chanset = print_event_set


def print_event(e: A.Event) -> str:
    """`c.v!w?x:S` (fields that are not atoms are parenthesized)."""
    return "".join(p if isinstance(p, str) else print_expr(*p) for p in _event(e))  # type: ignore[arg-type]


def _event(e: A.Event) -> list[Piece]:
    out: list[Piece] = [e.channel]
    for n, f in enumerate(e.fields):
        if n < e.indexed:
            out.extend(("[", (f.value, 0), "]"))  # type: ignore[union-attr]
        elif isinstance(f, A.InField):
            shown = "" if f.restriction is None else f":{print_type(f.restriction, 'set')}"
            out.append(f"?{f.var}{shown}")
        else:
            out.extend(("." if isinstance(f, A.DotField) else "!", (f.value, _ATOM)))
    return out


def print_statement(a: A.Statement) -> str:
    """One statement of a `{ }` block or an `atomic` block, as text."""
    return "".join(x if isinstance(x, str) else _emit(x[0], x[1]) for x in _statement(a))


def _assigns(assigns: tuple[A.Statement, ...]) -> list[Piece]:
    out: list[Piece] = ["{"]
    for i, a in enumerate(assigns):
        if i:
            out.append(", ")
        out.extend(_statement(a))
    out.append("}")
    return out


def _statement(a: A.Statement) -> list[Piece]:
    """An assignment, a loop of assignments, or (in `atomic`) an `if` or an `assert`."""
    out: list[Piece]
    if isinstance(a, A.Assign):
        out = [(a.target, _ATOM), " := ", (a.value, 0)]
    elif isinstance(a, A.AssignLoop):
        out = [f"forall {a.var}: {print_type(a.domain, 'set')} @ "]
        out.extend(_statement(a.body))
    elif isinstance(a, A.BlockAssert):
        out = ["assert(", (a.cond, 0), ")"]
    else:
        out = ["if ", (a.cond, 0), " then "]
        out.extend(_assigns(a.then))
        if a.orelse:
            out.append(" else ")
            out.extend(_assigns(a.orelse))
    return out


# ---------------------------------------------------------------------- layouts
Layout = tuple[list[Piece], int]


def layout_of(node: Node) -> Layout:
    """A node's pieces and binding level (`fito fmt` breaks long lines between pieces)."""
    return _LAYOUT[type(node)](node)


def _stop(p: A.Stop) -> Layout:
    return ["STOP"], _ATOM


def _skip(p: A.Skip) -> Layout:
    return ["SKIP"], _ATOM


def _proc_ref(p: A.ProcRef) -> Layout:
    return _call_pieces(p.name, p.args), _ATOM


def _call_pieces(name: str, args: tuple[A.Expr, ...]) -> list[Piece]:
    if not args:
        return [name]
    out: list[Piece] = [name, "("]
    for i, a in enumerate(args):
        out.extend((", " if i else "", (a, 0)))
    out.append(")")
    return out


def _prefix(p: A.Prefix) -> Layout:
    head: list[Piece] = _event(p.event) if p.event is not None else []
    if p.assigns:
        head.extend(([" "] if head else []) + _assigns(p.assigns))
    elif p.event is None:
        head.append("{}")
    return head + [" -> ", (p.body, LEVEL["&"])], LEVEL["->"]


def _guard(p: A.Guard) -> Layout:
    # `(a and b) & P`: a logical condition is parenthesized, for the reader's sake
    return [(p.cond, LEVEL["=="]), " & ", (p.body, LEVEL["&"])], LEVEL["&"]


def _proc_binary(p: A.ProcBinary) -> Layout:
    lv = LEVEL[p.op]
    return [(p.left, lv), f" {p.op} ", (p.right, lv + 1)], lv


def _parallel(p: A.Parallel) -> Layout:
    lv = LEVEL["[||]"]
    return [(p.left, lv), f" [| {print_event_set(p.sync)} |] ", (p.right, lv + 1)], lv


def _alpha_parallel(p: A.AlphaParallel) -> Layout:
    lv = LEVEL["[a||b]"]
    op = f" [{print_event_set(p.left_alpha)} || {print_event_set(p.right_alpha)}] "
    return [(p.left, lv), op, (p.right, lv + 1)], lv


def _hide(p: A.Hide) -> Layout:
    return [(p.proc, LEVEL["\\"]), f" \\ {print_event_set(p.chans)}"], LEVEL["\\"]


def _rename(p: A.Rename) -> Layout:
    pairs = ", ".join(f"{print_event(r.source)} <- {print_event(r.target)}" for r in p.pairs)
    return [(p.proc, _ATOM), f" [[{pairs}]]"], _ATOM


def _assert_step(p: A.AssertStep) -> Layout:
    return ["assert(", (p.cond, 0), ") -> ", (p.body, LEVEL["&"])], LEVEL["->"]


def _atomic(p: A.Atomic) -> Layout:
    out: list[Piece] = ["atomic "]
    out.extend(_assigns(p.stmts))
    out.extend((" -> ", (p.body, LEVEL["&"])))
    return out, LEVEL["->"]


def _select(p: A.Select) -> Layout:
    out: list[Piece] = ["if"]
    for b in p.branches:
        out.extend((" :: ", (b, 0)))
    if p.orelse is not None:
        out.extend((" :: else -> ", (p.orelse, 0)))
    return out + [" fi"], _ATOM


def _if(p: A.ProcIf | A.IfExpr) -> Layout:
    return ["if ", (p.cond, 0), " then ", (p.then, 0), " else ", (p.orelse, 0)], _OPEN


def _replicated(p: A.Replicated) -> Layout:
    binder = f"{p.var}: {print_type(p.domain, 'set')} @ "
    if p.op == "||":
        assert p.sync is not None
        return [f"|| {binder}[{print_event_set(p.sync)}] ", (p.body, 0)], _OPEN
    op = f"[| {print_event_set(p.sync)} |]" if p.op == "[||]" and p.sync is not None else p.op
    return [f"{op} {binder}", (p.body, 0)], _OPEN


def _int(e: A.IntLit) -> Layout:
    return ([str(e.value)], _ATOM) if e.value >= 0 else ([f"-{-e.value}"], _UNARY)


def _bool(e: A.BoolLit) -> Layout:
    return ["true" if e.value else "false"], _ATOM


def _name(e: A.Name) -> Layout:
    return [e.id], _ATOM


def _index(e: A.Index) -> Layout:
    return [(e.base, _ATOM), "[", (e.index, 0), "]"], _ATOM


def _call(e: A.Call) -> Layout:
    return _call_pieces(e.func, e.args) if e.args else [e.func, "()"], _ATOM


def _unary(e: A.Unary) -> Layout:
    if e.op == "not":
        return ["not ", (e.operand, _UNARY)], _UNARY
    starts_negative = (
        isinstance(e.operand, A.Unary)
        and e.operand.op == "-"
        or isinstance(e.operand, A.IntLit)
        and e.operand.value < 0
    )
    return ["- " if starts_negative else "-", (e.operand, _UNARY)], _UNARY


def _binary(e: A.Binary) -> Layout:
    lv = LEVEL[e.op]
    if e.op == "=>":
        left, right = lv + 1, lv
    elif e.op in ("==", "!=", "<", "<=", ">", ">="):
        left, right = lv + 1, lv + 1
    else:
        left, right = lv, lv + 1
    return [(e.left, left), f" {e.op} ", (e.right, right)], lv


def _quant(e: A.Quant) -> Layout:
    return [f"{e.kind} {e.var}: {print_type(e.domain, 'set')} @ ", (e.body, 0)], _OPEN


def _let(e: A.Let) -> Layout:
    return [f"let {e.var} = ", (e.value, 0), " in ", (e.body, 0)], _OPEN


_LAYOUT: dict[type, Callable[..., Layout]] = {
    A.Stop: _stop,
    A.Skip: _skip,
    A.ProcRef: _proc_ref,
    A.Prefix: _prefix,
    A.Guard: _guard,
    A.ProcBinary: _proc_binary,
    A.Parallel: _parallel,
    A.Hide: _hide,
    A.ProcIf: _if,
    A.Replicated: _replicated,
    A.IntLit: _int,
    A.BoolLit: _bool,
    A.Name: _name,
    A.Index: _index,
    A.Call: _call,
    A.Unary: _unary,
    A.Binary: _binary,
    A.IfExpr: _if,
    A.Quant: _quant,
    A.Let: _let,
    A.AlphaParallel: _alpha_parallel,
    A.Rename: _rename,
    A.AssertStep: _assert_step,
    A.Atomic: _atomic,
    A.Select: _select,
}


# ---------------------------------------------------------------------- ltl formulas
# Every binary temporal or Boolean operator of a formula is printed in parentheses and every
# non-atomic proposition too, so the text parses back to the same formula whatever the
# precedence rules are (docs/ltl.md).
_ATOMIC = (A.Name, A.IntLit, A.BoolLit, A.Index, A.Call)


def print_formula(f: T.Formula) -> str:
    """A formula as text (iteratively: deep formulas do not recurse)."""
    out: list[str] = []
    todo: list[T.Formula | str] = [f]
    while todo:
        g = todo.pop()
        if isinstance(g, str):
            out.append(g)
        elif isinstance(g, T.Prop):
            text = print_expr(g.expr)
            out.append(text if isinstance(g.expr, _ATOMIC) else f"({text})")
        elif isinstance(g, T.Fired):
            out.append(f"fired({_events(g.events)})")
        elif isinstance(g, T.TUnary):
            todo += [g.operand, f"{g.op} "]
        else:
            todo += [")", g.right, f" {g.op} ", g.left, "("]
    return "".join(out)


def _events(s: A.EventSet) -> str:
    if s.kind == "channels" and len(s.items) == 1:
        return print_event(s.items[0])  # `fired(c.v)`, not `fired({| c.v |})`
    return print_event_set(s)


def print_fairness(fs: tuple[T.Fairness, ...]) -> str:
    """` fair weak, strong(P)` (empty without assumptions)."""
    if not fs:
        return ""
    parts = []
    for f in fs:
        if not f.targets:
            parts.append(f.kind)
            continue
        shown = [
            print_event_set(t) if isinstance(t, A.EventSet) else print_proc(t) for t in f.targets
        ]
        parts.append(f"{f.kind}({', '.join(shown)})")
    return " fair " + ", ".join(parts)


def print_ltl(d: A.AssertDecl, proc: str | None) -> str:
    """The text of an ltl assertion after `assert`."""
    head = f"{proc} |= " if proc else ""
    return f"{head}ltl {print_formula(d.formula)}{print_fairness(d.fairness)}"
