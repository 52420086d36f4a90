"""`fito fmt`: a spec in canonical form, its comments kept.

Each declaration is laid out by `fito.lang.printer.breaks` in `WIDTH` columns (breaks only
where the text has a space, so the tree is the same), with these rules for what the printer
does not see:
- comments between declarations stay where they are, each on its own lines;
- a comment after a declaration's last token, on the same line, is its trailing comment; so
  is a comment at the end of the first line of a declaration written on several lines
  (nothing else inside it being a comment). A trailing comment follows the declaration's
  first line: `-- expect:` comments keep the line that verdicts are reported on;
- the trailing comments of consecutive one-line declarations are aligned two columns after
  the longest of them;
- a declaration with any other comment inside it, or with an error that fmt need not judge
  (a type error found while building the tree), is left exactly as written;
- one blank line is kept where the source had one or more, none at the start or end.
Formatting is idempotent (the output is its own canonical form) and keeps the tree: both
are tested on every shipped spec and on generated programs with comments.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from fito import budget
from fito.diagnostics import Diagnostic
from fito.lang import nodes as A
from fito.lang.printer.breaks import decl_text
from fito.lang.syntax.lexer import block_comment_end
from fito.lang.syntax.parser import machinery, parse

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


@dataclass(frozen=True, slots=True)
class _Piece:
    """One declaration's output: its lines, trailing comment, and where it came from."""

    lines: tuple[str, ...]
    comment: Comment | None
    verbatim: bool  # the source's own text: a trailing comment stays after its last line
    first_line: int  # source lines, for blank lines and leading comments
    last_line: int


def format_text(source: str, width: int = WIDTH) -> Formatted:
    """The canonical form of a spec's text (laid out in `width` columns), or the syntax
    diagnostics that prevent it."""
    parsed = parse(source)
    if parsed.spec is None or any(d.is_error and d.code[0] == "P" for d in parsed.diagnostics):
        return Formatted(None, parsed.diagnostics)
    comments = find_comments(source)
    errors = sorted(d.span.start for d in parsed.diagnostics if d.is_error)
    out = _Output()
    ci = 0
    extents = decl_extents(source, parsed.spec.decls)
    line_of = _lines(source)
    for k, (decl, (start, end)) in enumerate(zip(parsed.spec.decls, extents)):
        budget.check()  # --timeout, --max-memory (fito.budget)
        following = extents[k + 1][0] if k + 1 < len(extents) else len(source)
        while ci < len(comments) and comments[ci].start < start:
            out.comment(comments[ci])
            ci += 1
        inside = []
        while ci < len(comments) and comments[ci].start < end:
            inside.append(comments[ci])
            ci += 1
        trailing = None
        if (
            ci < len(comments)
            and comments[ci].start < following
            and comments[ci].line == line_of(end)
        ):
            trailing = comments[ci]
            ci += 1
        out.piece(
            _piece(
                source,
                decl,
                (start, end),
                (line_of(start), line_of(end)),
                inside,
                trailing,
                _has_error(errors, start, end),
                width,
            )
        )
    for c in comments[ci:]:
        out.comment(c)
    return Formatted(out.text(), parsed.diagnostics)


class _Output:
    """The output lines, blank lines where the source had them, and the sections of
    consecutive one-line declarations whose trailing comments are aligned."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.aligned: dict[int, str] = {}  # line index -> its trailing comment, to align
        self.last_line = 0  # the last source line written

    def _gap(self, next_line: int) -> None:
        if self.lines and next_line > self.last_line + 1:
            self.lines.append("")

    def comment(self, c: Comment) -> None:
        self._gap(c.line)
        self.lines.append(c.text)
        self.last_line = c.end_line

    def piece(self, p: _Piece) -> None:
        self._gap(p.first_line)
        c = p.comment
        if c is not None and len(p.lines) == 1 and c.line == c.end_line:
            self.aligned[len(self.lines)] = c.text
            self.lines.append(p.lines[0])
        elif c is not None and p.verbatim:
            self.lines.extend([*p.lines[:-1], f"{p.lines[-1]}  {c.text}"])
        elif c is not None:
            self.lines.extend([f"{p.lines[0]}  {c.text}", *p.lines[1:]])
        else:
            self.lines.extend(p.lines)
        self.last_line = p.last_line

    def text(self) -> str:
        """The lines, each section's comments two columns after its longest line."""
        section: list[int] = []
        for i in sorted(self.aligned) + [-1]:
            if section and i != section[-1] + 1:
                width = max(len(self.lines[k]) for k in section)
                for k in section:
                    self.lines[k] = f"{self.lines[k]:<{width}}  {self.aligned[k]}"
                section = []
            section.append(i)
        return "\n".join(self.lines) + "\n" if self.lines else ""


def _has_error(errors: list[int], start: int, end: int) -> bool:
    i = bisect.bisect_left(errors, start)
    return i < len(errors) and errors[i] < end


def _lines(source: str) -> Callable[[int], int]:
    """The line number of an offset, by bisection over the newlines (counting them from the
    start for every declaration is quadratic in the file)."""
    newlines = [m.start() for m in re.finditer("\n", source)]
    return lambda pos: bisect.bisect_left(newlines, pos) + 1


def _piece(
    source: str,
    decl: A.Decl,
    extent: tuple[int, int],
    rows: tuple[int, int],
    inside: list[Comment],
    trailing: Comment | None,
    has_error: bool,
    width: int,
) -> _Piece:
    (start, end), (first, last) = extent, rows
    first_line_end = source.find("\n", start)
    if (
        trailing is None
        and not has_error
        and len(inside) == 1
        and last > first
        and inside[0].line == first
        and inside[0].end == first_line_end
    ):
        trailing, inside = inside[0], []  # a comment after the first line of the declaration
    if inside or has_error:
        lines = tuple(source[start:end].split("\n"))
    else:
        lines = tuple(decl_text(decl, width).split("\n"))
    return _Piece(
        lines,
        trailing,
        bool(inside or has_error),
        first,
        trailing.end_line if trailing and trailing.line == last else last,
    )


def decl_extents(source: str, decls: tuple[A.Decl, ...]) -> list[tuple[int, int]]:
    """Each declaration's text from its first token to its last (a span can stop short of
    closing parentheses, which are not nodes)."""
    tokens = machinery().scanner.scan(source)
    offsets = [t[2] for t in tokens]
    out = []
    for i, d in enumerate(decls):
        limit = decls[i + 1].span.start if i + 1 < len(decls) else len(source) + 1
        k = bisect.bisect_left(offsets, limit) - 1
        last = tokens[k]
        out.append((d.span.start, max(d.span.end, last[2] + len(last[1]))))
    return out


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
