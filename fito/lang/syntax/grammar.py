"""The grammar: its text (`grammar.lark`, package data), the options Lark analyses it with,
and what an analysis of it is, as plain data (`Analysis`).

`fito.lang.syntax.larkgrammar` computes an analysis with Lark; `fito.lang.syntax.tables`
caches it beside the grammar; `fito.lang.syntax.lalr` runs its parse table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

LARK_OPTIONS: dict[str, Any] = dict(
    parser="lalr", strict=True, keep_all_tokens=True, maybe_placeholders=True
)
#: os.path rather than pathlib or importlib.resources: neither is imported otherwise on the way
#: to a verdict, and in a plain environment they cost about 15 ms of start-up
HERE = os.path.dirname(os.path.abspath(__file__))

#: What the parser needs of a grammar rule to shape its children as Lark would: (size,
#: origin, alias, expand1, empty_indices, spliced children)
RuleShape = tuple[int, str, str | None, bool, tuple[bool, ...], tuple[bool, ...]]


@dataclass(frozen=True, slots=True)
class Analysis:
    """The parse table (actions `s >= 0` shift to s, `r < 0` reduce by rule ~r, as in
    `fito.lang.syntax.lalr.Tables`), each rule's shape, and the literal terminals."""

    key: str  # fito.lang.syntax.tables.grammar_key() of the grammar analysed
    literals: dict[str, str]  # terminal name -> its text, e.g. ARROW -> "->"
    actions: tuple[dict[str, int], ...]  # per state: terminal -> action
    gotos: tuple[dict[str, int], ...]  # per state: nonterminal -> state
    rules: tuple[RuleShape, ...]
    start: int
    end: int


def grammar_text() -> str:
    """The grammar, shipped as package data."""
    with open(os.path.join(HERE, "grammar.lark"), encoding="utf-8") as f:
        return f.read()
