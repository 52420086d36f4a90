"""The canonical printer: AST -> text, with the fewest parentheses the grammar needs.

`parse(print_spec(spec)) == spec` (spans aside) is a tested property. Open forms
(if, forall, exists, replicated operators) are parenthesized whenever they stand as an
operand, which is always correct and keeps the printer simple.
"""
from __future__ import annotations

from fito.lang import ast as A
from fito.lang.operators import LEVEL

_OPEN = 0
_UNARY = 16
_ATOM = 100
_INDENT = "  "


def print_spec(spec: A.Spec) -> str:
    """The whole file, one declaration per line (pipelines span several)."""
    return "".join(print_decl(d) + "\n" for d in spec.decls)


# ---------------------------------------------------------------------- declarations
def print_decl(d: A.Decl) -> str:
    if isinstance(d, A.ConstDecl):
        typ = f": {print_type(d.type)}" if d.type is not None else ""
        return f"const {d.name}{typ} = {print_expr(d.value)}"
    if isinstance(d, A.TypeDecl):
        return f"type {d.name} = {print_type(d.rhs)}"
    if isinstance(d, A.ChannelDecl):
        fields = ": " + ".".join(print_type(f, "chan") for f in d.fields) if d.fields else ""
        return f"channel {', '.join(d.names)}{fields}"
    if isinstance(d, A.DomainDecl):
        idx = "".join(f"[{p.name}: {print_type(p.type)}]" for p in d.indices)
        persistence = "durable" if d.durable else "volatile"
        return f"domain {d.name}{idx}: {print_type(d.type)} = {print_expr(d.init)} {persistence}"
    if isinstance(d, A.ProcessDecl):
        params = "(" + ", ".join(f"{p.name}: {print_type(p.type)}" for p in d.params) + ")" \
            if d.params else ""
        return f"process {d.name}{params} = {print_proc(d.body)}"
    if isinstance(d, A.SystemDecl):
        return f"system {print_proc(d.proc)}"
    if isinstance(d, A.AssertDecl):
        return "assert " + print_assertion(d)
    assert isinstance(d, A.PipelineDecl)
    body = "".join(f"{_INDENT}{print_stmt(s)}\n" for s in d.stmts)
    return f"pipeline {d.name} {{\n{body}}}"


def print_assertion(d: A.AssertDecl) -> str:
    """The assertion text after `assert` (also used to label verdicts)."""
    proc = print_proc(d.proc, 1) if d.proc is not None else None
    if d.kind == "deadlock":
        return f"{proc} :[deadlock free]" if proc else ":[deadlock free]"
    if d.kind in ("always", "eventually"):
        assert d.expr is not None
        head = f"{proc} |= " if proc else ""
        return f"{head}{d.kind} {print_expr(d.expr)}"
    if d.kind == "reaches":
        assert d.expr is not None
        return f"{proc} reaches {print_expr(d.expr)}" if proc else f"reaches {print_expr(d.expr)}"
    assert d.kind == "refines" and d.spec is not None
    return f"{print_proc(d.spec, 1)} [T= {print_proc(d.proc)}"  # type: ignore[arg-type]


def print_stmt(s: A.Stmt) -> str:
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
        return "Int"
    if isinstance(t, A.RangeType):
        inner = f"{print_expr(t.lo, 1)}..{print_expr(t.hi, 1)}"
        return {"type": inner, "chan": f"({inner})", "set": f"{{{inner}}}"}[context]
    return "{" + ", ".join(print_expr(x) for x in t.items) + "}"


# ---------------------------------------------------------------------- processes
def print_proc(p: A.Proc, min_level: int = 0) -> str:
    text, level = _proc(p)
    return f"({text})" if level < min_level else text


def _proc(p: A.Proc) -> tuple[str, int]:
    if isinstance(p, A.Stop):
        return "STOP", _ATOM
    if isinstance(p, A.Skip):
        return "SKIP", _ATOM
    if isinstance(p, A.ProcRef):
        args = "(" + ", ".join(print_expr(a) for a in p.args) + ")" if p.args else ""
        return p.name + args, _ATOM
    if isinstance(p, A.Prefix):
        lv = LEVEL["->"]
        head = print_event(p.event) if p.event is not None else ""
        if p.assigns:
            block = "{" + ", ".join(print_assign(a) for a in p.assigns) + "}"
            head = f"{head} {block}" if head else block
        elif p.event is None:
            head = "{}"
        return f"{head} -> {print_proc(p.body, LEVEL['&'])}", lv
    if isinstance(p, A.Guard):
        lv = LEVEL["&"]
        return f"{print_expr(p.cond, LEVEL['=>'])} & {print_proc(p.body, lv)}", lv
    if isinstance(p, A.ProcBinary):
        lv = LEVEL[p.op]
        return f"{print_proc(p.left, lv)} {p.op} {print_proc(p.right, lv + 1)}", lv
    if isinstance(p, A.Parallel):
        lv = LEVEL["[||]"]
        return (f"{print_proc(p.left, lv)} [| {_chanset(p.sync)} |] {print_proc(p.right, lv + 1)}", lv)
    if isinstance(p, A.Hide):
        lv = LEVEL["\\"]
        return f"{print_proc(p.proc, lv)} \\ {_chanset(p.chans)}", lv
    if isinstance(p, A.ProcIf):
        return (f"if {print_expr(p.cond)} then {print_proc(p.then)} else {print_proc(p.orelse)}", _OPEN)
    assert isinstance(p, A.Replicated)
    op = f"[| {_chanset(p.sync)} |]" if p.op == "[||]" else p.op
    return f"{op} {p.var}: {print_type(p.domain, 'set')} @ {print_proc(p.body)}", _OPEN


def _chanset(items: tuple[A.Expr, ...]) -> str:
    return "{| " + ", ".join(print_expr(x) for x in items) + " |}" if items else "{||}"


def print_event(e: A.Event) -> str:
    out = [e.channel]
    for f in e.fields:
        if isinstance(f, A.DotField):
            out.append("." + _field(f.value))
        elif isinstance(f, A.OutField):
            out.append("!" + _field(f.value))
        else:
            restriction = f":{print_type(f.restriction, 'set')}" if f.restriction is not None else ""
            out.append(f"?{f.var}{restriction}")
    return "".join(out)


def _field(v: A.Expr) -> str:
    root = v
    while isinstance(root, A.Index):
        root = root.base
    if isinstance(v, (A.Name, A.IntLit, A.BoolLit, A.Call)) or \
            (isinstance(v, A.Index) and isinstance(root, A.Name)):
        if not (isinstance(v, A.IntLit) and v.value < 0):
            return print_expr(v)
    return f"({print_expr(v)})"


def print_assign(a: A.Assign) -> str:
    return f"{print_expr(a.target, _ATOM)} := {print_expr(a.value)}"


# ---------------------------------------------------------------------- expressions
def print_expr(e: A.Expr, min_level: int = 0) -> str:
    text, level = _expr(e)
    return f"({text})" if level < min_level else text


def _expr(e: A.Expr) -> tuple[str, int]:
    if isinstance(e, A.IntLit):
        return (str(e.value), _ATOM) if e.value >= 0 else (f"-{-e.value}", _UNARY)
    if isinstance(e, A.BoolLit):
        return ("true" if e.value else "false"), _ATOM
    if isinstance(e, A.Name):
        return e.id, _ATOM
    if isinstance(e, A.Index):
        return f"{print_expr(e.base, _ATOM)}[{print_expr(e.index)}]", _ATOM
    if isinstance(e, A.Call):
        return f"{e.func}({', '.join(print_expr(a) for a in e.args)})", _ATOM
    if isinstance(e, A.Unary):
        operand = print_expr(e.operand, _UNARY)
        if e.op == "-":
            sep = " " if operand.startswith("-") else ""
            return f"-{sep}{operand}", _UNARY
        return f"not {operand}", _UNARY
    if isinstance(e, A.Binary):
        lv = LEVEL[e.op]
        if e.op == "=>":
            left, right = print_expr(e.left, lv + 1), print_expr(e.right, lv)
        elif e.op in ("==", "!=", "<", "<=", ">", ">="):
            left, right = print_expr(e.left, lv + 1), print_expr(e.right, lv + 1)
        else:
            left, right = print_expr(e.left, lv), print_expr(e.right, lv + 1)
        return f"{left} {e.op} {right}", lv
    if isinstance(e, A.IfExpr):
        return f"if {print_expr(e.cond)} then {print_expr(e.then)} else {print_expr(e.orelse)}", _OPEN
    assert isinstance(e, A.Quant)
    return f"{e.kind} {e.var}: {print_type(e.domain, 'set')} @ {print_expr(e.body)}", _OPEN
