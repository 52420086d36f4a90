"""Programs of fito's grammar for Hypothesis: `from_lark` over a depth-bounded unfolding.

`from_lark` on the grammar itself mostly runs into Hypothesis's depth limit (terms nest
through parentheses, operators and open forms), so most draws are thrown away. Here each
rule of the compiled grammar (Lark's own BNF, `lark_parser().rules`) is copied once per
level 0..D, children pointing one level down, and a rule is kept at a level only if its
children can still be completed in the levels left: every string is a program of the
original grammar, of bounded depth. Tokens are drawn with a trailing space; names are
never keywords.
"""

from __future__ import annotations

import math
from collections import defaultdict

from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

from fito.lang.syntax.grammar import grammar_text
from fito.lang.syntax.lexer import RESERVED_UNUSED
from fito.lang.syntax.parser import lark_parser


def _min_heights(alternatives: dict[str, list[list[object]]]) -> dict[str, int]:
    """The height of the smallest derivation tree of each nonterminal."""
    height: dict[str, float] = defaultdict(lambda: math.inf)
    changed = True
    while changed:
        changed = False
        for name, alts in alternatives.items():
            for alt in alts:
                h = 1 + max([height[s.name] for s in alt if not s.is_term] or [0])  # type: ignore[attr-defined]
                if h < height[name]:
                    height[name] = h
                    changed = True
    return {n: int(h) for n, h in height.items() if h < math.inf}


def bounded_grammar(depth: int) -> tuple[Lark, dict[str, st.SearchStrategy[str]]]:
    """A Lark grammar of the programs of depth <= depth, and strategies for its terminals."""
    parser = lark_parser()
    alternatives: dict[str, list[list[object]]] = defaultdict(list)
    for rule in parser.rules:
        alternatives[rule.origin.name].append(list(rule.expansion))
    _without_ltl(alternatives)
    height = _min_heights(alternatives)
    rule_id = {name: f"r{i}" for i, name in enumerate(sorted(alternatives))}
    term_id = {t.name: f"T{i}" for i, t in enumerate(parser.terminals)}
    lines = [f"start: {rule_id['start']}_0"]
    for level in range(depth + 1):
        for name, alts in sorted(alternatives.items()):
            kept = [
                " ".join(
                    term_id[s.name] if s.is_term else f"{rule_id[s.name]}_{level + 1}"  # type: ignore[attr-defined]
                    for s in alt
                )
                for alt in alts
                if all(
                    s.is_term or height.get(s.name, math.inf) <= depth - level  # type: ignore[attr-defined]
                    for s in alt
                )
            ]
            if kept:
                lines.append(f"{rule_id[name]}_{level}: " + "\n    | ".join(kept))
    lines.extend(f'{tid}: "{tid.lower()}"' for tid in term_id.values())
    grammar = Lark("\n".join(lines), parser="earley", lexer="dynamic")
    return grammar, _terminal_strategies(parser, term_id)


def parser_without_ltl() -> Lark:
    """Lark's parser of the grammar without the lines of `ltl` assertions (see _without_ltl)."""
    text = "\n".join(x for x in grammar_text().splitlines() if "LTL" not in x)
    return Lark(text, parser="lalr", lexer="basic", strict=True, maybe_placeholders=True)


def _without_ltl(alternatives: dict[str, list[list[object]]]) -> None:
    """Leave out the alternatives with tokens the scanner makes only inside an `ltl`
    assertion (fito/lang/syntax/temporal_tokens.py): the grammar cannot say where they may
    stand (tests/lang/test_ltl_syntax.py generates formulas), and then the rules left with
    no alternative, and the alternatives that use them."""
    gone: set[str] = set()
    while True:
        for alts in alternatives.values():
            alts[:] = [
                alt
                for alt in alts
                if not any(
                    s.name.startswith("LTL") if s.is_term else s.name in gone  # type: ignore[attr-defined]
                    for s in alt
                )
            ]
        empty = {name for name, alts in alternatives.items() if not alts}
        if empty <= gone:
            break
        gone |= empty
    for name in gone:
        del alternatives[name]


def _terminal_strategies(
    parser: Lark, term_id: dict[str, str]
) -> dict[str, st.SearchStrategy[str]]:
    keywords = {t.pattern.value for t in parser.terminals if t.pattern.type == "str"}
    names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_']{0,6}", fullmatch=True).filter(
        lambda n: n not in keywords and n not in RESERVED_UNUSED
    )
    out: dict[str, st.SearchStrategy[str]] = {}
    for t in parser.terminals:
        if t.pattern.type == "str":
            out[term_id[t.name]] = st.just(t.pattern.value + " ")
    out[term_id["NAME"]] = names.map(lambda n: n + " ")
    out[term_id["INT"]] = st.integers(0, 10**6).map(lambda i: f"{i} ")
    out[term_id["__IGNORE_0"]] = st.sampled_from(["\n", "\t", "  "])
    return out


def programs(depth: int = 9) -> st.SearchStrategy[str]:
    """Texts of fito programs drawn from the grammar, nesting at most `depth` rules deep."""
    grammar, explicit = bounded_grammar(depth)
    used = {t.name for t in grammar.terminals}
    return from_lark(grammar, explicit={k: v for k, v in explicit.items() if k in used})
