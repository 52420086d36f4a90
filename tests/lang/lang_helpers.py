"""Shared helpers of the front-end tests: corpora, round trips, parsing on a deep stack."""

from __future__ import annotations

from pathlib import Path

from fito.check.options import CheckOptions
from fito.deep import run_deep
from fito.diagnostics import Diagnostic
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_spec
from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import parse
from fito.outcome import FileReport
from fito.pipeline import check_file

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
VALID = sorted((DATA / "valid").glob("*.fito"))
INVALID = sorted((DATA / "invalid").glob("*.fito"))
EXAMPLES = sorted(Path("/work/shared/examples").glob("*.fito"))
SPECS = sorted((ROOT / "specs").glob("*.fito"))
PROTOCOLS = [p for p in SPECS if p.with_suffix(".pml").exists()]  # with their Promela models


def parses(path: Path) -> bool:
    """The file parses, with no error found while building its tree."""
    result = parse(path.read_text(encoding="utf-8"))
    return result.spec is not None and not any(d.is_error for d in result.diagnostics)


def well_formed() -> list[Path]:
    """Every shipped or corpus spec that parses (the printer's round-trip inputs)."""
    return [p for p in VALID + INVALID + EXAMPLES + SPECS if parses(p)]


def spec_of(text: str) -> A.Spec:
    """The AST of a text that must parse cleanly."""
    result = parse(text)
    assert result.spec is not None, result.diagnostics
    assert not [d for d in result.diagnostics if d.is_error], result.diagnostics
    return result.spec


def round_trip(spec: A.Spec) -> A.Spec:
    """parse(print(spec))."""
    return spec_of(print_spec(spec))


def front_end(text: str) -> tuple[A.Spec | None, list[Diagnostic]]:
    """Parse and resolve on the deep-stack thread, as `fito check` does."""

    def run() -> tuple[A.Spec | None, list[Diagnostic]]:
        parsed = parse(text)
        diags = list(parsed.diagnostics)
        if parsed.spec is not None:
            diags.extend(resolve(parsed.spec)[1])
        return parsed.spec, diags

    return run_deep(run)


def checked_report(path: Path, model_check: bool) -> FileReport:
    """`fito check`'s report of a file."""
    return run_deep(check_file, str(path), CheckOptions(model_check=model_check))
