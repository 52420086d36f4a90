"""Helpers of the proof-kit tests: the command line in-process, hashed certificates."""

from __future__ import annotations

import json
from pathlib import Path

from fito.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
KIT = ROOT / "proofs" / "kit_examples.py"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """Run `fito ARGV...` in-process: (exit status, stdout, stderr)."""
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def certificate(*obligations, verdict: str = "proved") -> dict:
    """A hashed certificate carrying the statement its obligations establish (an empty one
    when an obligation fails: the kernel then names that obligation)."""
    from fito.proof.kernel import FORMAT, KernelError, certificate_hash, statement_of

    obs = [ob.to_json() if hasattr(ob, "to_json") else ob for ob in obligations]
    try:
        statement = statement_of(verdict, obs)
    except (KernelError, AttributeError, TypeError):
        statement = []
    c = {
        "format": FORMAT,
        "id": "t.case",
        "title": "t",
        "description": "s",
        "model": "m",
        "method": "test",
        "verdict": verdict,
        "statement": statement,
        "obligations": obs,
        "producer": {"fito": "test"},
    }
    c["sha256"] = certificate_hash(c)
    return c


def load_all(directory: Path) -> dict[str, dict]:
    """Every certificate in a directory, by file name."""
    return {p.name: json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))}
