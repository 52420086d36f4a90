"""The cached LALR analysis (fito/lang/grammar_tables.json) is derived, fresh, and never
trusted when stale."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lark import Lark

from fito.lang.syntax import tables as an
from fito.lang.syntax.larkgrammar import TokenFeed, from_lark
from fito.lang.syntax.parser import parse

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def fresh() -> an.Analysis:
    """The analysis recomputed by Lark now, bypassing both caches (ours and Lark's)."""
    text = an.grammar_text()
    return from_lark(Lark(text, lexer=TokenFeed, **an.LARK_OPTIONS), an.grammar_key(text))


def test_the_shipped_cache_equals_a_fresh_computation(fresh: an.Analysis) -> None:
    stored = an.load(an.CACHE)
    assert stored is not None, (
        "grammar_tables.json is missing: run python -m fito.lang.syntax.tables"
    )
    assert stored.key == fresh.key, "the grammar changed: run python -m fito.lang.syntax.tables"
    assert stored == fresh
    assert Path(an.CACHE).read_text(encoding="utf-8") == an.dump(fresh)


def test_the_analysis_in_use_is_the_fresh_one(fresh: an.Analysis) -> None:
    assert an.analysis() == fresh


def test_the_canonical_order_does_not_depend_on_string_hashing(fresh: an.Analysis) -> None:
    code = (
        "from lark import Lark\n"
        "from fito.lang.syntax import tables as an\n"
        "from fito.lang.syntax.larkgrammar import TokenFeed, from_lark\n"
        "t = an.grammar_text()\n"
        "print(an.dump(from_lark(Lark(t, lexer=TokenFeed, **an.LARK_OPTIONS), "
        "an.grammar_key(t))), end='')\n"
    )
    for seed in ("1",):  # the fixture ran under another (random) seed
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        assert out.stdout == an.dump(fresh)


def _with_cache(monkeypatch: pytest.MonkeyPatch, path: Path) -> an.Analysis:
    monkeypatch.setattr(an, "CACHE", path)
    an.analysis.cache_clear()
    try:
        return an.analysis()
    finally:
        an.analysis.cache_clear()


@pytest.mark.parametrize("damage", ["old key", "old format", "garbled", "missing"])
def test_a_stale_or_broken_cache_is_recomputed(
    damage: str, fresh: an.Analysis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a stale file whose tables are wrong: used, it would break every parse
    wrong = dataclasses.replace(fresh, actions=tuple({} for _ in fresh.actions))
    path = tmp_path / "grammar_tables.json"
    if damage == "old key":
        path.write_text(an.dump(dataclasses.replace(wrong, key="0" * 64)), encoding="utf-8")
    elif damage == "old format":
        data = json.loads(an.dump(wrong))
        data["format"] = an.FORMAT - 1
        path.write_text(json.dumps(data), encoding="utf-8")
    elif damage == "garbled":
        path.write_text(an.dump(wrong)[:1000], encoding="utf-8")
    assert _with_cache(monkeypatch, path) == fresh


def test_a_matching_cache_is_used_as_stored(
    fresh: an.Analysis, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the key decides: a file with the current key is loaded, not recomputed
    marked = dataclasses.replace(fresh, literals={**fresh.literals, "MARK": "mark"})
    path = tmp_path / "grammar_tables.json"
    path.write_text(an.dump(marked), encoding="utf-8")
    assert _with_cache(monkeypatch, path) == marked


def test_parsing_with_the_cache_does_not_import_lark() -> None:
    code = (
        "import sys\nfrom fito.lang.syntax.parser import parse\n"
        "r = parse('channel a\\nprocess P = a -> P\\n')\n"
        "print(r.spec is not None, 'lark' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.split() == ["True", "False"]


def test_the_parser_built_from_the_cache_parses() -> None:
    assert parse("channel a\nprocess P = a -> P\nsystem P\n").spec is not None
