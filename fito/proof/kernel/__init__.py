"""The proof kernel: re-checks `fito-certificate/2` files (`certificate.FORMAT`) with exact
rational arithmetic.

Standard library only (json, hashlib, fractions, re): it imports no solver and nothing from
fito outside this package, so trusting a "proved" means trusting these few hundred lines,
Python's Fraction arithmetic and its JSON parser.

    from fito.proof.kernel import load, check
    result = check(load("certificates/kit.square.json"), strict=False)
    result.accepted, result.reason, result.trusted, result.statement, result.verdict

A certificate is also bound to the claim its id names: `registry.json`, shipped with the
kernel, holds every registered claim's words and the hashes of its propositions
(`registry.py`), so a certificate cannot be moved to another claim, cut down or flipped.
"""

from __future__ import annotations

from fito.proof.kernel.certificate import (
    FORMAT,
    KINDS,
    Result,
    Unreadable,
    canonical_json,
    certificate_hash,
    check,
    ensure_certificate,
    load,
    seal,
    statement_of,
)
from fito.proof.kernel.expr import KernelError
from fito.proof.kernel.registry import Registry, bind

__all__ = [
    "FORMAT",
    "KINDS",
    "KernelError",
    "Registry",
    "Result",
    "Unreadable",
    "bind",
    "canonical_json",
    "certificate_hash",
    "check",
    "ensure_certificate",
    "load",
    "seal",
    "statement_of",
]
