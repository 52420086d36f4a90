"""What a verdict shows of a symbolic proof: the method and the invariant in spec syntax."""

from __future__ import annotations

from fito.check.symbolic.prove import Proof
from fito.check.symbolic.spec_syntax import invariant_lines
from fito.semantics.compiled import Compiled


def proof_fields(c: Compiled, proof: object) -> tuple[str, tuple[str, ...], dict | None, str]:
    """The Verdict fields of a proof (fito/check/result.py): method, invariant, certificate
    and the kernel's answer."""
    assert isinstance(proof, Proof)
    method = proof.method if proof.k <= 1 else f"{proof.k}-induction"
    return method, invariant_lines(c, proof), proof.certificate, proof.kernel
