r"""Declarations as pretty-printing documents: the canonical printer's text, with the places
where `fito fmt` may break a long line.

The text of a document laid out flat is the printer's (`fito.lang.printer.canonical`), so the tree
is preserved by construction: breaks only replace spaces. Where a line is too long, a chain
of one process operator puts one operand per line, the operator first (`[] Q`); a chain of
prefixes puts one event per line, the arrow last (`a ->`); a guard, a replicated form or a
quantifier indents its body on the next line; `if` puts `then` and `else` under it;
`if :: … fi` puts each branch on a line of its own; argument and assignment lists wrap after
a comma; logical and arithmetic chains break before their
operator. A few parentheses the printer leaves out are added for the reader (the tree is the same):
around a cell's initial value that is not an atom (`= (e == 0) durable`), around an
operator chain that is an operand of another process operator (`(P ; Q) ||| R`), around
the prefixes of an interrupt (`P /\ (crash -> Q)`) and around `and` inside `or`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fito.lang import nodes as A
from fito.lang.operators import LEVEL
from fito.lang.printer.canonical import (
    layout_of,
    print_assertion,
    print_decl,
    print_event,
    print_expr,
    print_proc,
    print_statement,
    print_type,
    process_head,
)
from fito.lang.printer.doc import LINE, Align, Doc, Group, Hang, Nest, Text, concat, layout

_ATOM = 100
INDENT = 2


def decl_text(d: A.Decl, width: int) -> str:
    """One declaration laid out in `width` columns (a pipeline as the printer lays it out)."""
    if isinstance(d, A.PipelineDecl):
        return print_decl(d)
    return layout(decl_doc(d), width).replace("{-", "{ -")


def decl_doc(d: A.Decl) -> Doc:
    """The document of one declaration (short forms are plain text)."""
    if isinstance(d, A.ProcessDecl):
        return _hang(process_head(d) + " =", node_doc(d.body, 0))
    if isinstance(d, A.ConstDecl):
        typ = f": {print_type(d.type)}" if d.type is not None else ""
        return _hang(f"const {d.name}{typ} =", node_doc(d.value, 0))
    if isinstance(d, A.DomainDecl):
        head = print_decl(d).split(" = ", 1)[0] + " ="
        persistence = "durable" if d.durable else "volatile"
        return concat(_hang(head, node_doc(d.init, 1, clarify=True)), " " + persistence)
    if isinstance(d, A.SystemDecl):
        return _hang("system", node_doc(d.proc, 0))
    if isinstance(d, A.AssertDecl):
        return _assertion(d)
    return Text(print_decl(d))


def _hang(head: str, body: Doc) -> Doc:
    """`head body`, or `head` and the body on the next line, indented."""
    return Group(concat(head, Nest(INDENT, concat(LINE, body))))


def _assertion(d: A.AssertDecl) -> Doc:
    proc = print_proc(d.proc, 1) if d.proc is not None else None
    if d.kind in ("always", "eventually", "reaches") and d.expr is not None:
        if d.kind == "reaches":
            head = f"{proc} reaches" if proc else "reaches"
        else:
            head = (f"{proc} |= " if proc else "") + d.kind
        return _hang("assert " + head, node_doc(d.expr, 0))
    if d.kind == "refines" and d.spec is not None and d.proc is not None:
        return _hang(f"assert {print_proc(d.spec, 1)} [T=", node_doc(d.proc, 0))
    return Text("assert " + print_assertion(d))


# ---------------------------------------------------------------------- nodes
def node_doc(node: A.Expr | A.Proc, need: int, clarify: bool = False) -> Doc:
    """A term, parenthesized when it binds more loosely than `need` (as the printer does) or,
    with clarify, when it is an operator chain (readers need not recall the precedence)."""
    pieces, level = layout_of(node)
    build = _BUILD.get(type(node))
    doc = build(node, pieces) if build is not None else _generic(pieces)
    if level < need or (clarify and level < _ATOM and not isinstance(node, A.Unary)):
        return concat("(", Align(doc), ")")
    return doc


def _generic(pieces: list) -> Doc:
    return concat(*(Text(p) if isinstance(p, str) else node_doc(*p) for p in pieces))


def _body(body: A.Expr | A.Proc, need: int) -> Doc:
    """The body of a guard or binder: on the same line if all of it fits, else hung below."""
    return Group(Hang(INDENT, concat(LINE, node_doc(body, need))))


def _never(_: object) -> bool:
    return False


def _chain(
    operands: list[tuple[object, int]], ops: list[str], clarify: Callable[[object], bool] = _never
) -> Doc:
    """`x0 op1 x1 op2 x2`, broken before each operator, operators under x0."""
    first, need = operands[0]
    parts: list[Doc | str] = [node_doc(first, need, clarify(first))]  # type: ignore[arg-type]
    for op, (operand, need) in zip(ops, operands[1:]):
        parts.extend((LINE, f"{op} ", node_doc(operand, need, clarify(operand))))  # type: ignore[arg-type]
    return Group(Align(concat(*parts)))


def _left_chain(
    node: Any, same: Callable[[object], bool], clarify: Callable[[object], bool] = _never
) -> Doc:
    """A left-nested chain of one binary operator, flattened into one group (the pieces of
    a binary node are `[(left, need), " op ", (right, need)]`)."""
    rights: list[tuple[object, int]] = []
    ops: list[str] = []
    while True:
        pieces: list[Any] = layout_of(node)[0]
        (left, left_need), op, right = pieces
        rights.append(right)
        ops.append(op.strip())
        if not same(left) or layout_of(left)[1] < left_need:
            return _chain([(left, left_need)] + rights[::-1], ops[::-1], clarify)
        node = left


def _is_process_chain(q: object) -> bool:
    return isinstance(q, (A.ProcBinary, A.Parallel, A.Hide))


def _proc_binary(p: A.ProcBinary, pieces: list) -> Doc:
    clarify = _is_process_chain
    if p.op == "/\\":  # `P /\ (crash -> Q)`, as CSP texts write it
        clarify = lambda q: _is_process_chain(q) or isinstance(q, A.Prefix)  # noqa: E731
    return _left_chain(p, lambda q: isinstance(q, A.ProcBinary) and q.op == p.op, clarify)


def _parallel(p: A.Parallel, pieces: list) -> Doc:
    return _left_chain(
        p, lambda q: isinstance(q, A.Parallel) and q.sync == p.sync, _is_process_chain
    )


def _is_and(q: object) -> bool:
    return isinstance(q, A.Binary) and q.op == "and"


def _binary(e: A.Binary, pieces: list) -> Doc:
    clarify = _is_and if e.op == "or" else _never
    if e.op in ("=>", "==", "!=", "<", "<=", ">", ">="):
        (left, ln), op, (right, rn) = pieces
        return _chain([(left, ln), (right, rn)], [op.strip()], clarify)
    return _left_chain(e, lambda q: isinstance(q, A.Binary) and q.op == e.op, clarify)


def _hide(p: A.Hide, pieces: list) -> Doc:
    (proc, need), rest = pieces
    return Group(Align(concat(node_doc(proc, need, _is_process_chain(proc)), LINE, rest.strip())))


def _prefix(p: A.Prefix, pieces: list) -> Doc:
    """A chain of prefixes, one per line when broken: `a {x := 1} ->` then the next; the
    last process stays after the last arrow when it fits."""
    parts: list[Doc | str] = []
    node: A.Proc = p
    while isinstance(node, A.Prefix):
        if parts:
            parts.append(LINE)
        parts.extend((_prefix_head(node), " ->"))
        node = node.body
    parts.append(Group(concat(LINE, node_doc(node, LEVEL["&"]))))
    return Group(Align(concat(*parts)))


def _prefix_head(p: A.Prefix) -> Doc:
    head: list[Doc | str] = [print_event(p.event)] if p.event is not None else []
    if p.assigns:
        assigns: list[Doc | str] = []
        for i, a in enumerate(p.assigns):
            item = (
                concat(print_expr(a.target, _ATOM) + " := ", node_doc(a.value, 0))
                if isinstance(a, A.Assign)
                else print_statement(a)
            )
            assigns.append(concat(",", Group(concat(LINE, item))) if i else item)
        head.extend(([" "] if head else []) + ["{", Align(concat(*assigns)), "}"])
    elif p.event is None:
        head.append("{}")
    return concat(*head)


def _guard(p: A.Guard, pieces: list) -> Doc:
    (cond, cond_need), _, (body, body_need) = pieces
    return concat(node_doc(cond, cond_need), " &", _body(body, body_need))


def _if(p: A.ProcIf | A.IfExpr, pieces: list) -> Doc:
    """`if c then a` / `else if d then b` / `else e`, one branch per line when broken."""
    parts: list[Doc | str] = []
    node: A.ProcIf | A.IfExpr = p
    while True:
        parts.extend(
            (
                "if ",
                node_doc(node.cond, 0),
                Group(Hang(INDENT, concat(LINE, "then ", node_doc(node.then, 0)))),
                LINE,
                "else ",
            )
        )
        if type(node.orelse) is not type(p):
            parts.append(node_doc(node.orelse, 0))
            return Group(Align(concat(*parts)))
        node = node.orelse


def _select(p: A.Select, pieces: list) -> Doc:
    """`if :: a :: b fi`; broken, each branch on a line of its own under `if`, as Promela
    texts write it."""
    parts: list[Doc | str] = ["if"]
    branches = [(":: ", b) for b in p.branches]
    if p.orelse is not None:
        branches.append((":: else -> ", p.orelse))
    for head, branch in branches:
        parts.extend((LINE, head, Align(node_doc(branch, 0))))
    return Group(Align(concat(*parts, LINE, "fi")))


def _binder(node: A.Replicated | A.Quant, pieces: list) -> Doc:
    """`[] x: T @ body`; binders in a row and a guard right after stay on one line."""
    head, (body, need) = pieces
    if isinstance(body, (A.Replicated, A.Quant, A.Guard)) and layout_of(body)[1] >= need:
        return concat(head, node_doc(body, need))
    return concat(head.rstrip(), _body(body, need))


def _call(node: A.Call | A.ProcRef, pieces: list) -> Doc:
    if len(pieces) < 3:
        return _generic(pieces)
    args: list[Doc] = []
    for piece in pieces[2:-1]:
        if not isinstance(piece, str):
            arg = node_doc(*piece)
            args.append(concat(",", Group(concat(LINE, arg))) if args else arg)
    return concat(pieces[0], "(", Align(concat(*args)), ")")


_BUILD: dict[type, Callable[..., Doc]] = {
    A.ProcBinary: _proc_binary,
    A.Parallel: _parallel,
    A.Binary: _binary,
    A.Hide: _hide,
    A.Prefix: _prefix,
    A.Guard: _guard,
    A.ProcIf: _if,
    A.IfExpr: _if,
    A.Replicated: _binder,
    A.Quant: _binder,
    A.Call: _call,
    A.ProcRef: _call,
    A.Select: _select,
}
