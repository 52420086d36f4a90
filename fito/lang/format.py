"""`fito fmt`: a spec in canonical form, its comments kept.

The canonical form is the printer's (`fito.lang.printer`), one declaration per line, with
these rules for what the printer does not see:
- comments between declarations stay where they are, each on its own lines;
- a comment after the last token of a declaration, on the same line, stays after it
  (`-- expect:` comments keep their declaration);
- a declaration with a comment inside it is left exactly as written (no comment is moved);
- one blank line is kept where the source had one or more, none at the start or end;
- a process longer than `WIDTH` characters is broken after `=`, and its top-level chain
  of one operator (`[]`, `|||`, ...) is put one operand per line.
Formatting is idempotent: the output of `format_text` is its own canonical form.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from fito.diagnostics import Diagnostic
from fito.lang import nodes as A
from fito.lang.lexer import block_comment_end
from fito.lang.operators import LEVEL
from fito.lang.parser import parse
from fito.lang.printer import print_chanset, print_decl, print_proc, process_head

WIDTH = 100
_COMMENT = re.compile(r"--[^\n]*|\{-")


@dataclass(frozen=True, slots=True)
class Comment:
    start: int
    end: int
    line: int
    end_line: int
    text: str


@dataclass(frozen=True, slots=True)
class Formatted:
    text: str | None  # None when the source does not parse
    diagnostics: tuple[Diagnostic, ...]


def format_text(source: str) -> Formatted:
    """The canonical form of a spec's text, or the syntax diagnostics that prevent it."""
    parsed = parse(source)
    if parsed.spec is None or any(d.is_error for d in parsed.diagnostics):
        return Formatted(None, parsed.diagnostics)
    comments = find_comments(source)
    out: list[str] = []
    last_line = 0  # the last source line already written
    ci = 0
    for decl in parsed.spec.decls:
        leading: list[Comment] = []
        while ci < len(comments) and comments[ci].start < decl.span.start:
            leading.append(comments[ci])
            ci += 1
        inside: list[Comment] = []
        while ci < len(comments) and comments[ci].start < decl.span.end:
            inside.append(comments[ci])
            ci += 1
        trailing = None
        if ci < len(comments) and comments[ci].line == decl.span.end_line:
            trailing = comments[ci]
            ci += 1
        for c in leading:
            _blank_line(out, last_line, c.line)
            out.append(c.text)
            last_line = c.end_line
        _blank_line(out, last_line, decl.span.line)
        text = source[decl.span.start:decl.span.end] if inside else _print(decl)
        out.append(text + (f"  {trailing.text}" if trailing is not None else ""))
        last_line = trailing.end_line if trailing is not None else decl.span.end_line
    for c in comments[ci:]:
        _blank_line(out, last_line, c.line)
        out.append(c.text)
        last_line = c.end_line
    return Formatted("\n".join(out) + "\n" if out else "", parsed.diagnostics)


def _blank_line(out: list[str], last_line: int, next_line: int) -> None:
    if out and next_line > last_line + 1:
        out.append("")


def find_comments(source: str) -> list[Comment]:
    """Every line comment and (outermost) block comment, in order, as the scanner sees them."""
    comments: list[Comment] = []
    pos, line = 0, 1  # line: the line number at pos
    while (m := _COMMENT.search(source, pos)) is not None:
        start = m.start()
        end = m.end() if m.group() != "{-" else block_comment_end(source, start)
        line += source.count("\n", pos, start)
        end_line = line + source.count("\n", start, end)
        comments.append(Comment(start, end, line, end_line, source[start:end].rstrip()))
        pos, line = end, end_line
    return comments


def _print(decl: A.Decl) -> str:
    text = print_decl(decl)
    if not isinstance(decl, A.ProcessDecl) or len(text) <= WIDTH:
        return text
    head = process_head(decl) + " ="
    operands, op, level = _top_chain(decl.body)
    if len(operands) < 2:
        return f"{head}\n  {print_proc(decl.body)}"
    lines = [head, "  " + print_proc(operands[0], level)]
    lines.extend(f"  {op} {print_proc(p, level + 1)}" for p in operands[1:])
    return "\n".join(lines)


def _top_chain(p: A.Proc) -> tuple[list[A.Proc], str, int]:
    """The operands of the body's top-level left-nested chain of one operator."""
    if isinstance(p, A.ProcBinary):
        op = p.op
        same = lambda q: isinstance(q, A.ProcBinary) and q.op == op  # noqa: E731
        shown = op
    elif isinstance(p, A.Parallel):
        sync = p.sync
        same = lambda q: isinstance(q, A.Parallel) and q.sync == sync  # noqa: E731
        shown = f"[| {print_chanset(sync)} |]"
        op = "[||]"
    else:
        return [p], "", 0
    rights: list[A.Proc] = []
    node: A.Proc = p
    while same(node):
        rights.append(node.right)  # type: ignore[union-attr]
        node = node.left  # type: ignore[union-attr]
    return [node] + rights[::-1], shown, LEVEL[op]
