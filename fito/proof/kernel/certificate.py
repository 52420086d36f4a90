"""Certificates: reading, hashing and checking a `fito-certificate/2` file (stdlib only)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fito.proof.kernel import checks, props, registry
from fito.proof.kernel.calculus import check_integral
from fito.proof.kernel.enumeration import check_enumeration, check_reachability
from fito.proof.kernel.expr import KernelError
from fito.proof.kernel.linear import check_farkas, check_linear_valid
from fito.proof.kernel.matrix import check_matrix
from fito.proof.kernel.ranges import check_interval_count, check_product_one, check_range_sign
from fito.proof.kernel.samples import check_samples

FORMAT = "fito-certificate/2"
VERDICTS = ("proved", "refuted")
FIELDS = (
    "format",
    "id",
    "title",
    "description",
    "model",
    "method",
    "verdict",
    "statement",
    "obligations",
    "producer",
    "sha256",
)
MAX_BYTES = 64 * 1024 * 1024
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_METHOD = re.compile(r"[a-z0-9][a-z0-9_+-]*\Z")

CHECKERS: dict[str, Callable[[dict], Any]] = {  # each returns the obligation's conclusion
    "identity": checks.check_identity,
    "recurrence": checks.check_recurrence,
    "sum_of_squares": checks.check_sum_of_squares,
    "farkas": check_farkas,
    "witness": checks.check_witness,
    "counterexample": checks.check_counterexample,
    "enumeration": check_enumeration,
    "reachability": check_reachability,
    "matrix": check_matrix,
    "linear_valid": check_linear_valid,
    "range_sign": check_range_sign,
    "product_one": check_product_one,
    "interval_count": check_interval_count,
    "samples": check_samples,
    "integral": check_integral,
    "trusted": checks.check_trusted,
}
KINDS = tuple(CHECKERS)
REFUTING = ("counterexample", "witness", "farkas")  # kinds whose conclusion can refute a claim


class Unreadable(Exception):
    """The file is not a certificate the kernel can read (exit status 2)."""


@dataclass(frozen=True, slots=True)
class Result:
    """The kernel's verdict on one certificate, with the statement it accepted."""

    accepted: bool
    claim: str
    reason: str = ""
    trusted: tuple[str, ...] = ()
    obligations: int = 0
    statement: tuple[Any, ...] = ()
    verdict: str = ""  # proved or refuted, when accepted
    bound: bool = False  # bound to a registered claim (registry.py); else unregistered


def canonical_json(data: Any) -> bytes:
    """The canonical bytes the hash covers: sorted keys, no spaces, UTF-8."""
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def certificate_hash(cert: dict[str, Any]) -> str:
    """SHA-256 of every field of the certificate except `sha256` itself."""
    body = {k: v for k, v in cert.items() if k != "sha256"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def load(path: str) -> dict[str, Any]:
    """Read a certificate file; Unreadable if it is not a JSON certificate object (`FORMAT`)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    if len(raw) > MAX_BYTES:
        raise Unreadable(f"larger than {MAX_BYTES} bytes")
    try:
        data = json.loads(
            raw.decode("utf-8"), parse_constant=_no_constant, object_pairs_hook=_no_duplicates
        )
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


def check(
    cert: dict[str, Any], *, strict: bool = False, claims: registry.Registry | None = None
) -> Result:
    """Re-check a certificate: hash and shape, its binding to the claim its id names
    (`registry.bind`, against the shipped registry unless `claims` is given), then every
    obligation in order and the statement they establish; `strict` also refuses trusted
    obligations and unregistered claims."""
    raw = cert.get("id")
    claim = raw if isinstance(raw, str) else "?"
    try:
        _envelope(cert)
        bound = registry.bind(cert, claims)  # cheap: the words and the statement's hashes
        trusted = _check(cert, strict)
        if strict and not bound:
            raise KernelError(f"claim {claim!r} is not registered (--strict)")
    except KernelError as exc:
        return Result(False, claim, str(exc))
    except RecursionError:
        return Result(False, claim, "certificate nests too deeply")
    except Exception as exc:  # noqa: BLE001 -- malformed content of any shape: refuse, never accept
        return Result(False, claim, f"malformed certificate ({type(exc).__name__}: {exc})")
    return Result(
        True,
        claim,
        "",
        trusted,
        len(cert["obligations"]),
        tuple(cert["statement"]),
        cert["verdict"],
        bound,
    )


def conclusions(obligations: object, strict: bool = False) -> tuple[list[Any], list[str]]:
    """Check every obligation in order: (their conclusions, the trust tags met)."""
    if not isinstance(obligations, list) or not obligations:
        raise KernelError("a certificate needs at least one obligation")
    out, trusted = [], []
    for i, ob in enumerate(obligations, 1):
        conclusion, tag = _check_obligation(ob, i, strict)
        out.append(conclusion)
        if tag and tag not in trusted:
            trusted.append(tag)
    return out, trusted


def statement_of(verdict: str, obligations: list[Any], strict: bool = False) -> list[Any]:
    """The statement a certificate with this verdict and these obligations must carry."""
    found, _ = conclusions(obligations, strict)
    return _statement(verdict, [ob["kind"] for ob in obligations], found)


def _statement(verdict: object, kinds: list[str], found: list[Any]) -> list[Any]:
    """Proved: the conclusions. Refuted: the claims they refute (each obligation must be
    a counterexample, witness or Farkas refutation, at least one evaluated at a point)."""
    if verdict == "proved":
        if "counterexample" in kinds:
            raise KernelError(
                f"obligation {kinds.index('counterexample') + 1} (counterexample) in "
                "a proved certificate"
            )
        return found
    bad = [i for i, k in enumerate(kinds, 1) if k not in REFUTING]
    if bad:
        raise KernelError(
            f"obligation {bad[0]} ({kinds[bad[0] - 1]}) cannot refute a claim: a "
            f"refuted certificate holds only {', '.join(REFUTING)} obligations"
        )
    if not {"counterexample", "witness"} & set(kinds):
        raise KernelError(
            "a refuted certificate needs a counterexample or witness the kernel evaluates"
        )
    return [props.negate(c) for c in found]


def seal(body: dict[str, Any]) -> tuple[dict[str, Any], Result]:
    """Complete a certificate (every field but `statement` and `sha256`) with the statement
    its obligations establish and its hash, checking every obligation once: the sealed
    certificate and the kernel's result (what `check` would answer for it before the
    binding to its claim, `registry.bind`, which the caller decides on)."""
    given = body.get("id")
    claim = given if isinstance(given, str) else "?"
    cert = dict(body)
    try:
        found, trusted = conclusions(cert.get("obligations"))
        kinds = [ob["kind"] for ob in cert["obligations"]]
        cert["statement"] = _statement(cert.get("verdict"), kinds, found)
        cert = {k: cert[k] for k in FIELDS if k in cert}
        cert["sha256"] = certificate_hash(cert)
        _envelope(cert)
    except KernelError as exc:
        return cert, Result(False, claim, str(exc))
    return cert, Result(
        True,
        claim,
        "",
        tuple(trusted),
        len(cert["obligations"]),
        tuple(cert["statement"]),
        cert["verdict"],
    )


def _check(cert: dict[str, Any], strict: bool) -> tuple[str, ...]:
    _envelope(cert)
    found, trusted = conclusions(cert["obligations"], strict)
    want = _statement(cert["verdict"], [ob["kind"] for ob in cert["obligations"]], found)
    _same_statement(cert["statement"], want)
    return tuple(trusted)


def _envelope(cert: dict[str, Any]) -> None:
    """Everything but the obligations: format, hash, fields, names, verdict, producer."""
    if cert.get("format") != FORMAT:
        raise KernelError(f"format is {cert.get('format')!r}, expected {FORMAT!r}")
    recorded, computed = cert.get("sha256"), certificate_hash(cert)
    if recorded != computed:
        raise KernelError(
            f"sha256 mismatch: recorded {str(recorded)[:16]}..., computed {computed[:16]}..."
        )
    missing = [f for f in FIELDS if f not in cert]
    extra = sorted(set(cert) - set(FIELDS))
    if missing or extra:
        raise KernelError(f"{'missing' if missing else 'unknown'} field {(missing or extra)[0]!r}")
    for name in ("id", "title", "description", "model", "method"):
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


def _same_statement(given: Any, want: list[Any]) -> None:
    """The certificate's statement must be exactly what its obligations prove (or refute)."""
    if not isinstance(given, list) or len(given) != len(want):
        n = len(given) if isinstance(given, list) else "no list of"
        raise KernelError(f"statement: {n} propositions, but the obligations establish {len(want)}")
    for i, (g, w) in enumerate(zip(given, want), 1):
        if g != w:
            raise KernelError(
                f"statement {i} is not what obligation {i} establishes: "
                f"it says {_short(props.render(g))}, "
                f"the obligation gives {_short(props.render(w))}"
            )


def _short(text: str) -> str:
    return text if len(text) <= 160 else text[:157] + "..."


def _check_obligation(ob: Any, index: int, strict: bool) -> tuple[Any, str | None]:
    kind = ob.get("kind") if isinstance(ob, dict) else None
    if kind not in KINDS:
        raise KernelError(f"obligation {index}: unknown kind {kind!r}")
    if "note" in ob and not isinstance(ob["note"], str):
        raise KernelError(f"obligation {index} ({kind}): note must be a string")
    try:
        conclusion = CHECKERS[kind](ob)
        tag = checks.trust_tag(ob) if kind == "trusted" else None
        if tag and strict:
            raise KernelError(f"{tag} is not re-checked by the kernel (--strict)")
    except KernelError as exc:
        raise KernelError(f"obligation {index} ({kind}): {exc}") from None
    return conclusion, tag
