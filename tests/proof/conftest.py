"""Fixtures of the proof-kit tests (their helpers: tests/proof/proof_helpers.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.proof.proof_helpers import KIT, ROOT


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
