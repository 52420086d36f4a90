"""The grammar's LALR(1) analysis as plain data: derived from `grammar.lark`, cached beside it.

Lark analyses the grammar (`strict=True`: any conflict or terminal collision is an error)
and computes the parse table. Importing Lark and loading its analysis costs about 0.15 s per
process, a quarter of a small `fito check`, and the result is a pure function of the grammar
text. So the analysis is also stored in `grammar_tables.json`, keyed by the grammar text
itself (and the Lark options): a run whose grammar equals the stored one loads the file and
never imports Lark; any other run (the grammar was edited, the file is missing or
unreadable) recomputes it from Lark and never trusts the stale file. `python -m
fito.lang.syntax.tables` rewrites the file, and tests/lang/test_lang_analysis.py checks that it
equals a fresh computation.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Union

from fito.lang.syntax.grammar import HERE, LARK_OPTIONS, Analysis, grammar_text

#: Bumped whenever the stored layout or the Lark options (fito.lang.syntax.grammar) change.
FORMAT = 1
CACHE = os.path.join(HERE, "grammar_tables.json")
PathLike = Union[str, "os.PathLike[str]"]


def grammar_key(text: str) -> str:
    """What the analysis is a function of: the grammar text itself (compared exactly, not by a
    hash), the Lark options and the stored layout."""
    return json.dumps([FORMAT, sorted(LARK_OPTIONS.items()), text])


@lru_cache(maxsize=1)
def analysis() -> Analysis:
    """The analysis of the shipped grammar: the cached file if its key matches, else Lark's."""
    text = grammar_text()
    key = grammar_key(text)
    stored = load(CACHE)
    if stored is not None and stored.key == key:
        return stored
    from fito.lang.syntax.larkgrammar import analyse  # lazy-import: Lark only when stale

    return analyse(text, key)


def load(path: PathLike) -> Analysis | None:
    """The analysis stored in `path`, or None when it is missing or not in the current layout."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("format") != FORMAT:
            return None
        return Analysis(
            data["key"],
            data["literals"],
            tuple(data["actions"]),
            tuple(data["gotos"]),
            tuple(
                (size, origin, alias, expand1, tuple(empty), tuple(spliced))
                for size, origin, alias, expand1, empty, spliced in data["rules"]
            ),
            data["start"],
            data["end"],
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def dump(a: Analysis) -> str:
    """The text stored in the cache file (one state per line, so diffs stay readable)."""
    head = json.dumps(
        {"format": FORMAT, "key": a.key, "start": a.start, "end": a.end, "literals": a.literals}
    )
    lines = [head[:-1] + ',\n"rules": [']
    lines.append(",\n".join(json.dumps(list(r)) for r in a.rules) + '],\n"actions": [')
    lines.append(",\n".join(json.dumps(row) for row in a.actions) + '],\n"gotos": [')
    lines.append(",\n".join(json.dumps(row) for row in a.gotos) + "]}\n")
    return "\n".join(lines)


def write_cache(path: PathLike = CACHE) -> Analysis:
    """Recompute the analysis from Lark and store it (the build step)."""
    from fito.lang.syntax.larkgrammar import analyse  # lazy-import: Lark, for the build step

    text = grammar_text()
    fresh = analyse(text, grammar_key(text))
    with open(path, "w", encoding="utf-8") as f:
        f.write(dump(fresh))
    return fresh


if __name__ == "__main__":
    written = write_cache()
    print(f"{CACHE}: {len(written.actions)} states, {len(written.rules)} rules")
