"""`fito fmt`: canonical, idempotent, tree-preserving, and it keeps every comment."""

from __future__ import annotations

from pathlib import Path

import pytest

from fito.cli.main import main
from fito.lang.printer.fmt import WIDTH, find_comments, format_text
from tests.lang.lang_helpers import EXAMPLES, SPECS, VALID, spec_of

FILES = [p for p in VALID + EXAMPLES + SPECS if "bad_syntax" not in p.name]


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_format_keeps_the_tree_and_every_comment(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    formatted = format_text(source).text
    assert formatted is not None
    assert spec_of(formatted) == spec_of(source)
    assert [c.text for c in find_comments(formatted)] == [c.text for c in find_comments(source)]
    assert format_text(formatted).text == formatted


def test_expectations_stay_on_their_declaration() -> None:
    source = "channel a\nprocess P =\n  a -> P\nassert P :[deadlock free]      -- expect: holds\n"
    assert format_text(source).text == (
        "channel a\nprocess P = a -> P\nassert P :[deadlock free]  -- expect: holds\n"
    )


def test_declarations_with_comments_inside_are_left_alone() -> None:
    source = "process P =\n  a -- first\n  -> P\nconst   N = 1\n"
    assert format_text(source).text == "process P =\n  a -- first\n  -> P\nconst N = 1\n"


def test_long_processes_are_broken_at_their_top_level_operator() -> None:
    names = [f"Component{i}" for i in range(12)]
    text = format_text("process System = " + " ||| ".join(names) + "\n").text
    assert text is not None
    lines = text.splitlines()
    assert lines[0] == "process System ="
    assert lines[1] == "  Component0" and lines[2] == "  ||| Component1"
    assert all(len(line) <= WIDTH for line in lines)


def test_blank_lines_are_kept_once() -> None:
    source = "\n\nconst A = 1\n\n\n\nconst B = 2\nconst C = 3\n\n"
    assert format_text(source).text == "const A = 1\n\nconst B = 2\nconst C = 3\n"


def test_fmt_command(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    ugly = tmp_path / "ugly.fito"
    ugly.write_text("const   N=1\n", encoding="utf-8")
    assert main(["fmt", str(ugly)]) == 0
    assert capsys.readouterr().out == "const N = 1\n"
    assert main(["fmt", "--check", str(ugly)]) == 1
    assert "ugly.fito" in capsys.readouterr().out
    ugly.write_text("const N = 1\n", encoding="utf-8")
    assert main(["fmt", "--check", str(ugly)]) == 0
    broken = tmp_path / "broken.fito"
    broken.write_text("const = 1\n", encoding="utf-8")
    assert main(["fmt", "--check", str(ugly), str(broken)]) == 2
    assert "P001" in capsys.readouterr().err
    assert main(["fmt", str(tmp_path / "missing.fito")]) == 2


def test_fmt_write_rewrites_what_is_not_canonical(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    ugly = tmp_path / "ugly.fito"
    ugly.write_text("const   N=1\nconst M = 1 < 2 < 3\n", encoding="utf-8")
    fine = tmp_path / "fine.fito"
    fine.write_text("const N = 1\n", encoding="utf-8")
    assert main(["fmt", "--write", str(ugly), str(fine)]) == 0  # a type error is no reason for 2
    assert capsys.readouterr().out == f"reformatted {ugly}\n"
    assert ugly.read_text() == "const N = 1\nconst M = 1 < 2 < 3\n"
    assert main(["fmt", "--check", str(ugly), str(fine)]) == 0
    assert sorted(tmp_path.iterdir()) == [fine, ugly]  # no temporary file left behind
    assert main(["fmt", "--write", "--check", str(ugly)]) == 2  # exclusive flags: bad usage
