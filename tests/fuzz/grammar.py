"""Random programs of fito's grammar: derivations of the LALR grammar's own rules.

Each nonterminal is expanded by a random alternative while the derivation is shallow, and
by an alternative of least height once it is deep, so every draw terminates and is a
program the parser accepts (the front end may still reject it: names, types). Names come
from a small pool so that references often resolve.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from functools import lru_cache

NAMES = (
    "a",
    "b",
    "c",
    "x",
    "y",
    "P",
    "Q",
    "R",
    "T",
    "Dom",
    "gpu",
    "nvme",
    "e",
    "e1",
    "s",
    "N",
    "crash",
    "x'",
    "tick",
    "Node",
    "live",
    "saved",
    "d",
)
_DECLARATIONS = frozenset(
    {"const", "type", "channel", "domain", "process", "system", "assert", "pipeline"}
)
INTS = ("0", "1", "2", "3", "10", "1000", "1000000000", "999999999999999999")


@lru_cache(maxsize=1)
def _grammar() -> tuple[
    dict[str, list[tuple[tuple[str, bool], ...]]], dict[str, str], dict[str, int]
]:
    from fito.lang.syntax.parser import lark_parser

    parser = lark_parser()
    alts: dict[str, list[tuple[tuple[str, bool], ...]]] = defaultdict(list)
    for rule in parser.rules:
        alts[rule.origin.name].append(tuple((s.name, s.is_term) for s in rule.expansion))
    literals = {t.name: t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    return dict(alts), literals, _heights(alts)


def _heights(alts: dict[str, list[tuple[tuple[str, bool], ...]]]) -> dict[str, int]:
    height: dict[str, float] = defaultdict(lambda: math.inf)
    changed = True
    while changed:
        changed = False
        for name, options in alts.items():
            for alt in options:
                h = 1 + max([height[s] for s, term in alt if not term] or [0])
                if h < height[name]:
                    height[name], changed = h, True
    return {n: int(h) for n, h in height.items() if h < math.inf}


def program(r: random.Random, depth: int = 12, max_tokens: int = 4000) -> bytes:
    """One random program text."""
    alts, literals, height = _grammar()
    out: list[str] = []
    work: list[tuple[str, bool, int]] = [("start", False, 0)]
    while work:
        symbol, term, level = work.pop()
        if term:
            out.append(_terminal(r, symbol, literals))
            continue
        options = alts[symbol]
        if level >= depth or len(out) > max_tokens:
            best = min(max([height.get(s, 0) for s, t in alt if not t] or [0]) for alt in options)
            options = [
                alt
                for alt in options
                if max([height.get(s, 0) for s, t in alt if not t] or [0]) == best
            ]
        alt = r.choice(options)
        work.extend((s, t, level + 1) for s, t in reversed(alt))
    return " ".join(out).replace(" \n", "\n").strip().encode() + b"\n"


def _terminal(r: random.Random, name: str, literals: dict[str, str]) -> str:
    if name == "NAME":
        return r.choice(NAMES)
    if name == "INT":
        return r.choice(INTS) if r.random() < 0.3 else str(r.randrange(4))
    if name in literals:
        value = literals[name]
        return "\n" + value if value in _DECLARATIONS else value
    return " "
