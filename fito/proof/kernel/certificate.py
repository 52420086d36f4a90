"""Certificates: reading, hashing and checking a `fito-certificate/1` file. Standard library only."""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fito.proof.kernel import checks
from fito.proof.kernel.expr import KernelError
from fito.proof.kernel.linear import check_linear_valid
from fito.proof.kernel.matrix import check_matrix

FORMAT = "fito-certificate/1"
VERDICTS = ("proved", "refuted")
FIELDS = ("format", "id", "title", "statement", "model", "method", "verdict", "obligations",
          "producer", "sha256")
MAX_BYTES = 64 * 1024 * 1024
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_METHOD = re.compile(r"[a-z0-9][a-z0-9_+-]*\Z")

CHECKERS: dict[str, Callable[[dict], None]] = {
    "identity": checks.check_identity,
    "recurrence": checks.check_recurrence,
    "sum_of_squares": checks.check_sum_of_squares,
    "farkas": checks.check_farkas,
    "witness": checks.check_witness,
    "counterexample": checks.check_counterexample,
    "enumeration": checks.check_enumeration,
    "matrix": check_matrix,
    "linear_valid": check_linear_valid,
}
KINDS = (*CHECKERS, "trusted")
REFUTING = ("counterexample", "witness", "farkas", "trusted")


class Unreadable(Exception):
    """The file is not a certificate the kernel can read (exit status 2)."""


@dataclass(frozen=True, slots=True)
class Result:
    """The kernel's verdict on one certificate."""

    accepted: bool
    claim: str
    reason: str = ""
    trusted: tuple[str, ...] = ()
    obligations: int = 0


def canonical_json(data: Any) -> bytes:
    """The canonical bytes the hash covers: sorted keys, no spaces, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def certificate_hash(cert: dict[str, Any]) -> str:
    """SHA-256 of every field of the certificate except `sha256` itself."""
    body = {k: v for k, v in cert.items() if k != "sha256"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def load(path: str) -> dict[str, Any]:
    """Read a certificate file; Unreadable if it is not a JSON `fito-certificate/1` object."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    if len(raw) > MAX_BYTES:
        raise Unreadable(f"larger than {MAX_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant,
                          object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Unreadable(f"not JSON: {str(exc).splitlines()[0][:120]}") from None
    return ensure_certificate(data)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ValueError(f"duplicate key {dup!r}")
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def ensure_certificate(data: Any) -> dict[str, Any]:
    """Refuse data that is not a certificate object of a known format (Unreadable)."""
    if not isinstance(data, dict):
        raise Unreadable("not a JSON object")
    if data.get("format") != FORMAT:
        raise Unreadable(f"format is {data.get('format')!r}, expected {FORMAT!r}")
    return data


def check(cert: dict[str, Any], *, strict: bool = False) -> Result:
    """Re-check a certificate: hash, shape, then every obligation in order."""
    raw = cert.get("id")
    claim = raw if isinstance(raw, str) else "?"
    try:
        trusted = _check(cert, strict)
    except KernelError as exc:
        return Result(False, claim, str(exc))
    except RecursionError:
        return Result(False, claim, "certificate nests too deeply")
    except Exception as exc:  # noqa: BLE001 -- malformed content of any shape: refuse, never accept
        return Result(False, claim, f"malformed certificate ({type(exc).__name__}: {exc})")
    return Result(True, claim, "", trusted, len(cert["obligations"]))


def _check(cert: dict[str, Any], strict: bool) -> tuple[str, ...]:
    if cert.get("format") != FORMAT:
        raise KernelError(f"format is {cert.get('format')!r}, expected {FORMAT!r}")
    recorded, computed = cert.get("sha256"), certificate_hash(cert)
    if recorded != computed:
        raise KernelError(f"sha256 mismatch: recorded {str(recorded)[:16]}..., computed {computed[:16]}...")
    missing = [f for f in FIELDS if f not in cert]
    extra = sorted(set(cert) - set(FIELDS))
    if missing or extra:
        raise KernelError(f"{'missing' if missing else 'unknown'} field {(missing or extra)[0]!r}")
    for name in ("id", "title", "statement", "model", "method"):
        if not isinstance(cert[name], str) or not cert[name].strip():
            raise KernelError(f"{name} must be a nonempty string")
    for name, pattern in (("id", _ID), ("method", _METHOD)):
        if not pattern.match(cert[name]):
            raise KernelError(f"{name} {cert[name]!r} does not match {pattern.pattern}")
    if cert["verdict"] not in VERDICTS:
        raise KernelError(f"verdict {cert['verdict']!r} is not one of {', '.join(VERDICTS)}")
    producer = cert["producer"]
    if not isinstance(producer, dict) or not all(isinstance(v, str) for v in producer.values()):
        raise KernelError("producer must be an object of version strings")
    obligations = cert["obligations"]
    if not isinstance(obligations, list) or not obligations:
        raise KernelError("a certificate needs at least one obligation")
    trusted: list[str] = []
    for i, ob in enumerate(obligations, 1):
        tag = _check_obligation(ob, i, strict)
        if tag and tag not in trusted:
            trusted.append(tag)
    _check_verdict(cert["verdict"], [ob["kind"] for ob in obligations])
    return tuple(trusted)


def _check_verdict(verdict: str, kinds: list[str]) -> None:
    """A counterexample refutes; a refutation needs an obligation able to show something false."""
    if verdict == "proved" and "counterexample" in kinds:
        raise KernelError(f"obligation {kinds.index('counterexample') + 1} (counterexample) in a proved certificate")
    if verdict == "refuted" and not set(kinds) & set(REFUTING):
        raise KernelError(f"a refuted certificate needs a {', '.join(REFUTING[:-1])} or {REFUTING[-1]} obligation")


def _check_obligation(ob: Any, index: int, strict: bool) -> str | None:
    kind = ob.get("kind") if isinstance(ob, dict) else None
    if kind not in KINDS:
        raise KernelError(f"obligation {index}: unknown kind {kind!r}")
    if "note" in ob and not isinstance(ob["note"], str):
        raise KernelError(f"obligation {index} ({kind}): note must be a string")
    try:
        if kind == "trusted":
            tag = checks.trust_tag(ob)
            if strict:
                raise KernelError(f"{tag} is not re-checked by the kernel (--strict)")
            return tag
        CHECKERS[kind](ob)
    except KernelError as exc:
        raise KernelError(f"obligation {index} ({kind}): {exc}") from None
    return None
