"""Writes into packed rows for the vector code (fito/semantics/codegen/vector.py), fused per word.

A transition's effect sets fields of the rows after it: constants (a location code, a new
activation's values), copies of a field of the rows before it, and computed values. Each is a
`Put`; `fuse` turns a run of them into one masked assignment per word touched (constants
folded into one literal, copies that shift by the same distance out of the same word folded
into one shift and mask), so a transition costs a few numpy calls per word rather than
several per field. A line of code between puts is a barrier: what was put before it is
written first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from fito.semantics.state.packing import Field

ALL = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class Put:
    """Field f of the rows after := a constant (int), an int64 expression (str), or, with
    `source`, the raw bits of a field of the block named source[0] (same lowest value and
    no wider, so the stored bits are the same)."""

    f: Field
    value: int | str = 0
    source: tuple[str, Field] | None = None


@dataclass(slots=True)
class _Word:
    clear: int = 0  # bits set by pending puts
    const: int = 0  # constant bits among them
    computed: int = 0  # bits set by terms and copies
    terms: list[str] = field(default_factory=list)
    copies: dict[tuple[str, int, int], int] = field(default_factory=dict)


def copyable(src: Field, dst: Field) -> bool:
    """Whether a value of field src is stored in dst as the very same bits."""
    return src.lo == dst.lo and src.width <= dst.width


def fuse(items: Sequence[str | Put], target: str = "Y") -> list[str]:
    """Lines of code doing the puts and running the lines, in order."""
    out: list[str] = []
    words: dict[int, _Word] = {}
    for item in items:
        if isinstance(item, str):
            out += _flush(words, target)
            out.append(item)
        elif item.f.width:
            _add(words, item, out, target)
    return out + _flush(words, target)


def _add(words: dict[int, _Word], put: Put, out: list[str], target: str) -> None:
    f = put.f
    bits = f.mask << f.shift
    w = words.get(f.word)
    if w is not None and w.computed & bits:  # a computed field set twice: the first goes now
        out.append(_line(f.word, words.pop(f.word), target))
        w = None
    if w is None:
        w = words[f.word] = _Word()
    w.clear |= bits
    w.const &= ~bits
    if put.source is not None:
        name, src = put.source
        key = (name, src.word, src.shift - f.shift)
        w.copies[key] = w.copies.get(key, 0) | (src.mask << f.shift)
        w.computed |= bits
    elif isinstance(put.value, str):
        v = f"({put.value} - {f.lo})" if f.lo else put.value
        w.terms.append(
            f"(({v}).astype(U) & {f.mask}) << {f.shift}"
            if f.shift
            else f"(({v}).astype(U) & {f.mask})"
        )
        w.computed |= bits
    else:
        w.const |= ((put.value - f.lo) & f.mask) << f.shift


def _flush(words: dict[int, _Word], target: str) -> list[str]:
    out = [_line(word, w, target) for word, w in sorted(words.items())]
    words.clear()
    return out


def _line(word: int, w: _Word, target: str) -> str:
    parts = []
    keep = ~w.clear & ALL
    if keep:
        parts.append(f"({target}[:, {word}] & {keep})")
    parts += w.terms
    for (name, src, delta), mask in w.copies.items():
        x = f"{name}[:, {src}]"
        if delta > 0:
            x = f"({x} >> {delta})"
        elif delta < 0:
            x = f"({x} << {-delta})"
        parts.append(f"({x} & {mask})")
    if w.const or not parts:
        parts.append(str(w.const))
    return f"{target}[:, {word}] = " + " | ".join(parts)
