"""The tokens of an `ltl` assertion (docs/ltl.md): a second pass over the scanner's output.

`ltl`, the operators `U`, `R`, `W`, `X`, the words `fired`, `fair`, `weak`, `strong` and the
diamond `<>` are not reserved words: they are read as such only inside an `ltl` assertion,
from the word `ltl` (after `|=`, or right after `assert`) up to the next declaration. So
no existing spec that names a cell `X` or a process `ltl` changes meaning. Inside a
formula `[]` is the temporal "always" (no process stands there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fito.lang.syntax.lexer import Tok

#: Declaration keywords: the formula ends at the next one.
_DECLARATIONS = frozenset(
    {"CONST", "TYPE", "CHANNEL", "DOMAIN", "PROCESS", "SYSTEM", "ASSERT", "PIPELINE", "FUN"}
)
#: Words with an operator meaning inside a formula -> their terminal.
_WORDS = {
    "U": "LTL_U",
    "R": "LTL_R",
    "W": "LTL_W",
    "X": "LTL_NEXT",
    "fired": "LTL_FIRED",
    "fair": "LTL_FAIR",
    "weak": "LTL_WEAK",
    "strong": "LTL_STRONG",
}
_FAIRNESS = frozenset({"weak", "strong"})
#: How syntax errors name these tokens.
TEMPORAL_DISPLAY = {
    "LTL": "'ltl'",
    "LTL_BOX": "'[]'",
    "LTL_DIAMOND": "'<>'",
    **{terminal: f"'{word}'" for word, terminal in _WORDS.items()},
}
#: After `assert ltl` these tokens say `ltl` names a process (`assert ltl :[deadlock free]`).
_PROCESS_FOLLOWS = frozenset({"DEADLOCK_OPEN", "SAT", "REACHES", "REFINES", "LPAR", "LSQB"})


def mark_temporal(tokens: list[Tok]) -> list[Tok]:
    """The tokens with those of every `ltl` formula re-typed (the list is changed in place)."""
    inside = fairness = False
    n = len(tokens)
    for i, tok in enumerate(tokens):
        kind = tok[0]
        if not inside:
            if kind == "NAME" and tok[1] == "ltl" and _opens_formula(tokens, i, n):
                tokens[i] = ("LTL", tok[1], tok[2], tok[3], tok[4])
                inside, fairness = True, False
            continue
        if kind in _DECLARATIONS:
            inside = False
            continue
        if fairness:  # `fair weak(U)`: processes keep their names
            if kind == "NAME" and tok[1] in _FAIRNESS:
                tokens[i] = (_WORDS[tok[1]], tok[1], tok[2], tok[3], tok[4])
            continue
        if kind == "NAME" and tok[1] == "fair":
            fairness = True
        if kind == "NAME" and tok[1] in _WORDS:
            tokens[i] = (_WORDS[tok[1]], tok[1], tok[2], tok[3], tok[4])
        elif kind == "EXTCHOICE":
            tokens[i] = ("LTL_BOX", tok[1], tok[2], tok[3], tok[4])
        elif kind == "LT" and i + 1 < n and _adjacent(tok, tokens[i + 1], "GT"):
            tokens[i] = ("LTL_DIAMOND", "<>", tok[2], tok[3], tok[4])
            tokens[i + 1] = ("", "", 0, 0, 0)  # dropped below
    return [t for t in tokens if t[0]]


def _opens_formula(tokens: list[Tok], i: int, n: int) -> bool:
    before = tokens[i - 1][0] if i else ""
    if before == "SAT":
        return True
    if before != "ASSERT":
        return False
    after = tokens[i + 1][0] if i + 1 < n else ""
    if after == "LPAR":  # `assert ltl(1) :[deadlock free]` calls a process; `assert ltl (p)`
        j = _closing(tokens, i + 1, n)
        after = tokens[j + 1][0] if j + 1 < n else ""
        return after not in _PROCESS_FOLLOWS
    return after not in _PROCESS_FOLLOWS and after != ""


def _closing(tokens: list[Tok], i: int, n: int) -> int:
    """The index of the token closing the bracket at i (or the last token)."""
    depth = 0
    for j in range(i, n):
        kind = tokens[j][0]
        if kind in ("LPAR", "LSQB"):
            depth += 1
        elif kind in ("RPAR", "RSQB"):
            depth -= 1
            if depth == 0:
                return j
    return n - 1


def _adjacent(a: Tok, b: Tok, kind: str) -> bool:
    return b[0] == kind and b[2] == a[2] + len(a[1])
