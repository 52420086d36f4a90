"""A small pretty-printing engine (Lindig's "Strictly Pretty", after Wadler and Oppen).

A document is text with optional line breaks: `LINE` is a space when its enclosing group is
laid out flat and a newline (to the current indentation) when the group is broken. A group
is flat when it fits, with what follows it up to the next break, in the width left on the
line. `Nest` adds to the indentation, `Align` sets it to the current column. Layout is
iterative (an explicit stack), so deep documents need no deep recursion, and each decision
looks at most `width` characters ahead. Indentation never passes half the width, so that
the output stays within a constant factor of the input however deep the nesting.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Text:
    text: str  # never holds a newline


@dataclass(frozen=True, slots=True)
class Line:
    pass


@dataclass(frozen=True, slots=True)
class Concat:
    parts: tuple[Doc, ...]


@dataclass(frozen=True, slots=True)
class Nest:
    indent: int
    doc: Doc


@dataclass(frozen=True, slots=True)
class Align:
    doc: Doc


@dataclass(frozen=True, slots=True)
class Hang:
    """Breaks inside doc indent `indent` more than the current line (or the enclosing
    indentation, when that is deeper)."""

    indent: int
    doc: Doc


@dataclass(frozen=True, slots=True)
class Group:
    doc: Doc


Doc = Text | Line | Concat | Nest | Align | Hang | Group
LINE = Line()
_FLAT, _BREAK = True, False


def concat(*parts: Doc | str) -> Doc:
    """The parts one after the other (strings become Text)."""
    return Concat(tuple(Text(p) if isinstance(p, str) else p for p in parts))


def layout(doc: Doc, width: int) -> str:
    """The document laid out in `width` columns (lines may be longer where nothing breaks)."""
    out: list[str] = []
    column = line_indent = 0
    deepest = width // 2
    stack: list[tuple[int, bool, Doc]] = [(0, _BREAK, doc)]
    while stack:
        indent, flat, d = stack.pop()
        if isinstance(d, Text):
            out.append(d.text)
            column += len(d.text)
        elif isinstance(d, Line):
            if flat:
                out.append(" ")
                column += 1
            else:  # indentation stops at half the width: deep nesting keeps the output
                # within a constant factor of its input (it was quadratic in the depth)
                indent = min(indent, deepest)
                out.append("\n" + " " * indent)
                column = line_indent = indent
        elif isinstance(d, Concat):
            stack.extend((indent, flat, p) for p in reversed(d.parts))
        elif isinstance(d, Nest):
            stack.append((indent + d.indent, flat, d.doc))
        elif isinstance(d, Align):
            stack.append((column, flat, d.doc))
        elif isinstance(d, Hang):
            stack.append((max(line_indent, indent) + d.indent, flat, d.doc))
        else:
            fits = flat or _fits(width - column, d.doc, stack)
            stack.append((indent, fits, d.doc))
    return "\n".join(line.rstrip() for line in "".join(out).split("\n"))


def _fits(room: int, doc: Doc, rest: list[tuple[int, bool, Doc]]) -> bool:
    """Whether doc, flat, and what follows it up to the next possible break fit in room
    columns. What follows is read in its own mode, and a group in it may still break: its
    first line break ends the measure (so lists fill their lines)."""
    local: list[tuple[bool, Doc]] = [(_FLAT, doc)]
    below = len(rest) - 1
    inside = True  # still measuring doc itself
    while room >= 0:
        if not local:
            if below < 0:
                return True
            inside = False
            _, flat, d = rest[below]
            below -= 1
            local.append((flat, d))
            continue
        flat, d = local.pop()
        if isinstance(d, Text):
            room -= len(d.text)
        elif isinstance(d, Line):
            if not flat:
                return True
            room -= 1
        elif isinstance(d, Concat):
            local.extend((flat, p) for p in reversed(d.parts))
        elif isinstance(d, (Nest, Align, Hang)):
            local.append((flat, d.doc))
        else:
            local.append((flat if inside else _BREAK, d.doc))
    return False
