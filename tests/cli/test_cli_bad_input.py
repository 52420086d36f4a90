"""`fito check` on bad input: one diagnostic line first, exit status 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.cli_helpers import DIAGNOSTIC_LINE, USAGE_LINE, assert_no_traceback, first_line, fito

CASES = {
    "empty": (b"", "C006", 1, 1),
    "binary": (b"\x00\x01\x02\xff binary", "C004", 1, 1),
    "invalid-utf8": (b"const E = 3\nconst F = \xc3\x28\n", "C003", 2, 11),
    "nested-parens": (b"const N = " + b"(" * 10_000 + b"1" + b")" * 10_000 + b"\n", "P005", 1, 267),
    "unterminated-comment": (b"const E = 3\n{- opened\n   never closed\n", "P003", 2, 1),
    "only-comments": (b"-- nothing but\n{- comments {- nested -} -}\n", "C006", 1, 1),
    "keyword-as-name": (b"channel a\nprocess channel = a -> STOP\n", "P007", 2, 9),
    "huge-integer": (b"const N = 1" + b"0" * 40 + b"\n", "P006", 1, 11),
    "syntax": (b"channel a\nprocess P = a -> -> STOP\n", "P001", 2, 18),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_file_gives_one_diagnostic_and_exit_2(tmp_path: Path, name: str) -> None:
    data, code, line, column = CASES[name]
    path = tmp_path / f"{name}.fito"
    path.write_bytes(data)
    proc = fito("check", str(path))
    assert_no_traceback(proc)
    assert proc.returncode == 2
    m = DIAGNOSTIC_LINE.match(first_line(proc))
    assert m, first_line(proc)
    assert (m["path"], m["code"], int(m["line"]), int(m["col"])) == (str(path), code, line, column)
    assert m["severity"] == "error"


def test_ten_megabyte_file(tmp_path: Path) -> None:
    path = tmp_path / "big.fito"
    path.write_bytes(b"-- padding\n" * (10 * 1024 * 1024 // 11 + 1))
    proc = fito("check", str(path))
    assert_no_traceback(proc)
    assert proc.returncode == 2
    m = DIAGNOSTIC_LINE.match(first_line(proc))
    assert m and m["code"] == "C005"


@pytest.mark.parametrize("what", ["directory", "missing"])
def test_unreadable_path(tmp_path: Path, what: str) -> None:
    path = tmp_path if what == "directory" else tmp_path / "nope.fito"
    proc = fito("check", str(path))
    assert_no_traceback(proc)
    assert proc.returncode == 2
    m = DIAGNOSTIC_LINE.match(first_line(proc))
    assert m and m["code"] == "C002" and m["path"] == str(path)


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--no-such-flag", "x.fito"],
        ["check", "--max-states", "0", "specs/checkpoint_naive.fito"],
        ["check", "--format", "xml", "specs/checkpoint_naive.fito"],
        ["check"],
        ["no-such-command"],
    ],
)
def test_bad_usage(args: list[str]) -> None:
    proc = fito(*args)
    assert_no_traceback(proc)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert USAGE_LINE.match(proc.stderr.splitlines()[0]), proc.stderr


def test_one_bad_file_among_good_ones_decides_the_status(tmp_path: Path) -> None:
    bad = tmp_path / "bad.fito"
    bad.write_text("const = 1\n", encoding="utf-8")
    proc = fito("check", "specs/checkpoint_naive.fito", str(bad))
    assert_no_traceback(proc)
    assert proc.returncode == 2
    assert any(DIAGNOSTIC_LINE.match(line) and "P001" in line for line in proc.stdout.splitlines())


def test_very_long_chains_are_checked(tmp_path: Path) -> None:
    """100,000-long `->` and `+` chains: parsed, resolved and model-checked (to a limit)."""
    path = tmp_path / "chains.fito"
    path.write_text(
        "channel a\n"
        "const N = " + " + ".join(["1"] * 100_000) + "\n"
        "process P = " + "a -> " * 100_000 + "STOP\n"
        "system P\nassert P :[deadlock free]\n",
        encoding="utf-8",
    )
    proc = fito("check", "--max-states", "5", str(path))
    assert_no_traceback(proc)
    assert proc.returncode == 3
    assert "unknown" in proc.stdout
