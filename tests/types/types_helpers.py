"""Helpers for the FITO type checker's tests: check a spec text, pick diagnostics by code."""
from __future__ import annotations

import pathlib
import sys
from typing import Sequence

from fito.diagnostics import Diagnostic
from fito.lang.parser import parse
from fito.lang.resolve import resolve
from fito.types import EpochOracle, check_pipelines

DATA = pathlib.Path(__file__).parent / "data"
SHARED = pathlib.Path("/work/shared")
DOMAINS = "type Dom = {gpu, host, nvme}\n"


def type_check(text: str, oracle: EpochOracle | None = None,
               with_resolver: bool = False) -> list[Diagnostic]:
    """The pipeline diagnostics of a spec text (plus the resolver's when asked)."""
    parsed = parse(text)
    assert parsed.spec is not None, parsed.diagnostics
    model, resolve_diags = resolve(parsed.spec)
    out = check_pipelines(model, oracle=oracle)
    return (list(resolve_diags) + out) if with_resolver else out


def pipeline(body: str, header: str = DOMAINS, name: str = "p") -> str:
    """A spec with the header and one pipeline whose statements are the lines of body."""
    lines = "\n".join("  " + line.strip() for line in body.strip().splitlines())
    return f"{header}pipeline {name} {{\n{lines}\n}}\n"


def codes(diags: Sequence[Diagnostic]) -> list[str]:
    return sorted(d.code for d in diags)


def only(diags: Sequence[Diagnostic], code: str) -> Diagnostic:
    found = [d for d in diags if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in diags]
    return found[0]


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of text containing needle."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in text")


def column_of(text: str, needle: str, within: str) -> int:
    """The 1-based column of needle inside the first line containing `within`."""
    line = text.splitlines()[line_of(text, within) - 1]
    return line.index(needle, line.index(within)) + 1


def fito_cmd() -> list[str]:
    return [sys.executable, "-m", "fito"]
