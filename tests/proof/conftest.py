"""Shared helpers of the proof-kit tests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fito.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
KIT = ROOT / "proofs" / "kit_examples.py"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """Run `fito ARGV...` in-process: (exit status, stdout, stderr)."""
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="session")
def kit_certificates(tmp_path_factory) -> Path:
    """The certificates of proofs/kit_examples.py, produced once per session."""
    from fito.proof import runner

    directory = tmp_path_factory.mktemp("kit-certificates")
    claims = runner.collect([str(KIT)])
    for r in runner.run_claims(claims, jobs=2):
        assert r.verdict == "proved", (r.claim.id, r.reason)
        runner.write_certificate(str(directory), r)
    return directory


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


@pytest.fixture(scope="session")
def proofs_certificates(tmp_path_factory):
    """Every certificate `fito prove proofs/` produces (all areas' claims).

    Set FITO_PROOF_CERTIFICATES to a directory CI already filled with `fito prove proofs/`
    to reuse it instead of proving everything again.
    """
    from fito.proof import runner

    given = os.environ.get("FITO_PROOF_CERTIFICATES")
    if given:
        return Path(given)
    directory = tmp_path_factory.mktemp("proofs-certificates")
    claims = runner.collect([str(ROOT / "proofs")])
    for r in runner.run_claims(claims, jobs=2):
        runner.write_certificate(str(directory), r)
    return directory


def load_all(directory: Path) -> dict[str, dict]:
    """Every certificate in a directory, by file name."""
    return {p.name: json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))}


__all__ = ["DATA", "KIT", "ROOT", "certificate", "load_all", "os", "run_cli"]
