"""A small LALR(1) driver over Lark's own parse table, feeding plain token tuples.

Lark stays the grammar analyser: the table comes from `Lark(..., parser="lalr",
strict=True)`, so the grammar is checked conflict-free (`fito.lang.syntax.tables` keeps that
analysis as plain data, cached beside the grammar). Only the runtime loop is ours: it
takes the scanner's tuples as they are (no `Token` objects), passes single-child `?rule`
reductions through without a call, and applies Lark's tree-shaping rules itself
(`_inlined` rules spliced into their parent, `None` for each missing `[optional]`, aliases
naming the builder's callback), so the builder sees the same children Lark would give it.

Errors raise `ParseFailure`, which keeps the state and the value stack so that the caller
can say what was expected in words (`fito.lang.syntax.messages`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from fito import budget
from fito.lang.syntax.grammar import Analysis, RuleShape
from fito.lang.syntax.lexer import Tok

#: Parse-stack depth beyond which the input is refused (nesting without brackets, such as
#: `- - - ... 1` or `if .. then if .. then ...`, grows the stack; sequences do not).
MAX_STACK = 20_000

Reducer = Callable[[list[Any]], Any]


@dataclass(frozen=True, slots=True)
class Tables:
    """The parse table, with actions encoded as ints: `s >= 0` shift to s, `r < 0` reduce ~r."""

    actions: tuple[dict[str, int], ...]
    gotos: tuple[dict[str, int], ...]
    rules: tuple[tuple[int, str, Reducer | None], ...]  # (size, origin, reducer or pass-through)
    start: int
    end: int
    reductions: tuple[tuple[int, dict[int, int], Reducer | None], ...] = ()  # (size, goto, reducer)

    def __post_init__(self) -> None:
        if not self.reductions:  # per rule: the goto of its origin from every state
            column: dict[str, dict[int, int]] = {}
            for state, row in enumerate(self.gotos):
                for origin, target in row.items():
                    column.setdefault(origin, {})[state] = target
            object.__setattr__(
                self,
                "reductions",
                tuple(
                    (size, column.get(origin, {}), reducer) for size, origin, reducer in self.rules
                ),
            )


class ParseFailure(Exception):
    """The token that no action accepts, with the parser's state when it arrived."""

    def __init__(self, token: Tok, state: int, values: list[Any], too_deep: bool = False) -> None:
        super().__init__(token[0])
        self.token = token
        self.state = state
        self.values = values
        self.too_deep = too_deep


def build_tables(analysis: Analysis, builder: object) -> Tables:
    """The parse table of the analysis; each rule's reducer calls the builder method Lark
    would."""
    reducers = tuple(make_reducer(shape, builder) for shape in analysis.rules)
    return Tables(
        analysis.actions,
        analysis.gotos,
        tuple((shape[0], shape[1], r) for shape, r in zip(analysis.rules, reducers)),
        analysis.start,
        analysis.end,
    )


def make_reducer(shape: RuleShape, builder: object) -> Reducer | None:
    """The callback of one rule: shape the children as Lark does, then call the builder."""
    size, origin, alias, expand1_option, empty_indices, spliced = shape
    nones, nones_after = _placeholders(empty_indices, size)
    inline = origin.startswith("_")
    expand1 = expand1_option and not alias
    method: Callable[[list[Any]], Any] | None = None
    if not inline:
        method = getattr(builder, alias or origin, None)
        if method is None and not (expand1 and size == 1):
            raise ValueError(f"the builder has no method for rule {origin} (alias {alias})")
    plain = not any(nones) and not nones_after and not any(spliced)
    if plain and expand1 and size == 1:
        return None  # pass the single child through
    if plain and inline:
        return list
    if plain:
        return method
    return _shaping_reducer(nones, nones_after, list(spliced), inline, expand1, method)


def _placeholders(empty_indices: Sequence[bool] | None, size: int) -> tuple[list[int], int]:
    """How many `None`s go before each child, and after the last (maybe_placeholders)."""
    if not empty_indices:
        return [0] * size, 0
    counts = [len(ones) for ones in "".join(str(int(b)) for b in empty_indices).split("0")]
    return counts[:size], counts[size]


def _shaping_reducer(
    nones: list[int],
    nones_after: int,
    spliced: list[bool],
    inline: bool,
    expand1: bool,
    method: Callable[[list[Any]], Any] | None,
) -> Reducer:
    plan = tuple(zip(nones, spliced))

    def reduce(children: list[Any]) -> Any:
        shaped: list[Any] = []
        for child, (none_count, splice) in zip(children, plan):
            if none_count:
                shaped.extend([None] * none_count)
            if splice:
                if shaped:
                    shaped.extend(child)
                else:  # left recursion: reuse the list, so sequences cost O(1) per item
                    shaped = child
            else:
                shaped.append(child)
        if nones_after:
            shaped.extend([None] * nones_after)
        if inline:
            return shaped
        if expand1 and len(shaped) == 1:
            return shaped[0]
        return method(shaped)  # type: ignore[misc]

    return reduce


def run(tables: Tables, tokens: Iterable[Tok], end_token: Tok) -> Any:
    """Parse the tokens (then `end_token`, type `$END`); the value of the start rule."""
    action_of = [row.get for row in tables.actions]  # bound methods: one lookup less per step
    rules, end = tables.reductions, tables.end
    states = [tables.start]
    values: list[Any] = []
    state = tables.start
    check = budget.check  # --timeout, --max-memory, every 4,096 tokens
    for i, tok in enumerate(chain(tokens, (end_token,))):
        if not i & 4095:
            check()
        ttype = tok[0]
        code = action_of[state](ttype)
        while code is not None and code < 0:  # reduce, as often as the look-ahead says
            size, goto, reducer = rules[~code]
            if size == 1:  # replace the top in place: the commonest reduction
                if reducer is not None:
                    values[-1] = reducer(values[-1:])
                state = states[-1] = goto[states[-2]]
            else:
                if size:
                    children = values[-size:]
                    del values[-size:]
                    del states[-size:]
                else:
                    children = []
                values.append(reducer(children))  # type: ignore[misc]
                state = goto[states[-1]]
                states.append(state)
            if state == end:
                return values[-1]
            code = action_of[state](ttype)
        if code is None:
            raise ParseFailure(tok, state, values)
        states.append(code)
        values.append(tok)
        state = code
        if len(states) > MAX_STACK:
            raise ParseFailure(tok, state, values, too_deep=True)
    raise AssertionError("the parse table accepted no input")  # unreachable with Lark's tables


def expected_terminals(tables: Tables, state: int) -> frozenset[str]:
    """The terminals the parser would accept in `state`."""
    return frozenset(tables.actions[state])
