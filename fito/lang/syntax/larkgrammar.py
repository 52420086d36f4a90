"""Lark's side of the grammar: the strict LALR analysis, encoded as `fito.lang.syntax.tables` data.

Only the slow path imports this module (the cached analysis is stale or missing, the cache
is being written, a tool wants Lark's own parser): importing Lark costs about 0.1 s.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lark import Lark, Token
from lark.lexer import Lexer

from fito.lang.syntax.grammar import LARK_OPTIONS, Analysis, RuleShape


class TokenFeed(Lexer):
    """Hands Lark the tokens our scanner produced (used to build the table, and by the peer)."""

    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, data: Any) -> Iterator[Token]:  # type: ignore[override]
        return iter(data)


def analyse(text: str, key: str) -> Analysis:
    """The analysis of a grammar text, computed by Lark."""
    return from_lark(lark_analyser(text), key)


def lark_analyser(text: str) -> Any:
    """Lark's strict LALR analysis of the grammar, fed our scanner's tokens (no Lark lexer)."""
    # Lark's own cache (keyed by grammar and options) spares the analysis on later runs
    return Lark(text, lexer=TokenFeed, cache=True, **LARK_OPTIONS)


def from_lark(parser: Any, key: str) -> Analysis:
    """Encode Lark's LALR table and rules as plain data, in a canonical order.

    Lark numbers its states in an order that varies with Python's string hashing; states are
    renumbered breadth-first from the start state (symbols in sorted order), and rules
    numbered as first met in that order, so that the same grammar always gives the same data.
    """
    table = parser.parser.parser.parser.parse_table
    (start,) = table.start_states.values()
    (end,) = table.end_states.values()
    order = _breadth_first(table.states, start)
    new = {old: i for i, old in enumerate(order)}
    rule_index: dict[Any, int] = {}
    rules: list[RuleShape] = []
    actions: list[dict[str, int]] = [{} for _ in order]
    gotos: list[dict[str, int]] = [{} for _ in order]
    for state, old in enumerate(order):
        for symbol, (action, arg) in sorted(table.states[old].items()):
            if action.name == "Shift":
                terminal = symbol.isupper() or symbol == "$END"
                (actions if terminal else gotos)[state][symbol] = new[arg]
                continue
            if arg not in rule_index:
                rule_index[arg] = len(rules)
                rules.append(rule_shape(arg))
            actions[state][symbol] = ~rule_index[arg]
    literals = {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    return Analysis(
        key,
        dict(sorted(literals.items())),
        tuple(actions),
        tuple(gotos),
        tuple(rules),
        new[start],
        new[end],
    )


def _breadth_first(states: dict[Any, dict[str, Any]], start: Any) -> list[Any]:
    """Every state, in breadth-first order of the shifts and gotos from `start`."""
    order, seen = [start], {start}
    for state in order:  # grows as it goes
        for _, (action, arg) in sorted(states[state].items()):
            if action.name == "Shift" and arg not in seen:
                seen.add(arg)
                order.append(arg)
    if len(order) != len(states):
        raise ValueError("the parse table has states unreachable from the start")
    return order


def rule_shape(rule: Any) -> RuleShape:
    """What the parser needs of a Lark rule to shape its children as Lark would."""
    expansion = rule.expansion
    return (
        len(expansion),
        rule.origin.name,
        rule.alias,
        bool(rule.options.expand1),
        tuple(bool(b) for b in rule.options.empty_indices or ()),
        tuple(not s.is_term and s.name.startswith("_") for s in expansion),
    )
