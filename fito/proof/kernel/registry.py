"""The registry of claim statements: what each named claim says, shipped with the kernel.

A certificate names its claim (`id`); the registry (`registry.json`, next to this module)
says what that claim is: its words (title, description, model, method) and the hash of
each proposition of its statement, in order. The kernel binds a certificate to its claim:

- a `proved` certificate of a registered claim must carry exactly the registered words and
  a statement whose propositions hash, one by one and in order, to the registered list:
  so a certificate cannot be moved to another claim, cut down (fewer obligations, fewer
  crash points, a smaller box) or have any proposition changed, even with every hash
  recomputed;
- a `refuted` certificate of a registered claim must refute registered propositions of
  that claim (each proposition it refutes hashes to one of the registered list), so the
  verdict cannot be flipped (a flipped certificate refutes the negation of the claim, or
  proves the negation of what it refuted: neither is registered);
- an id in a namespace the registry reserves (the part before the first `.` of every
  registered id: `fleet`, `paperA`, ...) must be registered; other ids are `unregistered`
  (a user's own claims): accepted for what their statement says, shown as such, refused by
  `--strict`.

A proposition's hash is SHA-256 of its canonical JSON, the first 32 hex digits (128 bits);
a trusted proposition is hashed without the tool's version (the tool itself is bound).
Standard library only. The registry is written by `python -m fito.proof.register` from
certificates a reviewer has accepted (docs/proofs.md).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from fito.proof.kernel.expr import KernelError

REGISTRY_FORMAT = "fito-claims/1"
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "registry.json")
WORDS = ("title", "description", "model", "method")
HASH_HEX = 32


@dataclass(frozen=True, slots=True)
class Entry:
    """One registered claim: its words and the hashes of its propositions, in order."""

    id: str
    words: tuple[tuple[str, str], ...]
    propositions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Registry:
    """Every registered claim, and the namespaces the registry reserves."""

    claims: dict[str, Entry]
    namespaces: frozenset[str]


def proposition_hash(p: Any) -> str:
    """The registered hash of one proposition (a trusted one without its tool's version)."""
    if isinstance(p, list) and len(p) == 4 and p[0] == "trusted":
        p = ["trusted", p[1], p[3]]
    body = json.dumps(p, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:HASH_HEX]


def namespace(claim_id: str) -> str:
    """The part of an id before its first dot (the whole id if it has none)."""
    return claim_id.split(".", 1)[0]


def parse(data: Any) -> Registry:
    """A registry from its JSON (KernelError if it is malformed)."""
    if not isinstance(data, dict) or data.get("format") != REGISTRY_FORMAT:
        raise KernelError(f"the claim registry is not a {REGISTRY_FORMAT} object")
    raw = data.get("claims")
    if not isinstance(raw, dict):
        raise KernelError("the claim registry has no claims object")
    claims = {}
    for cid, e in raw.items():
        words = tuple((w, e.get(w)) for w in WORDS)
        props = e.get("statement")
        if not all(isinstance(v, str) for _, v in words) or not (
            isinstance(props, list) and props and all(isinstance(h, str) for h in props)
        ):
            raise KernelError(f"the claim registry's entry {cid!r} is malformed")
        claims[cid] = Entry(cid, words, tuple(props))
    return Registry(claims, frozenset(namespace(c) for c in claims))


_LOADED: dict[str, Registry] = {}


def load(path: str = PATH) -> Registry:
    """The registry at path (the shipped one by default), read once per process."""
    if path not in _LOADED:
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError) as exc:
            raise KernelError(f"the claim registry {path} cannot be read: {exc}") from None
        _LOADED[path] = parse(data)
    return _LOADED[path]


def bind(cert: dict[str, Any], registry: Registry | None = None) -> bool:
    """Check that a certificate (its envelope checked: fields, names, verdict) is about the
    claim its id names, with the meaning of its verdict: True if bound to a registered
    claim, False if its id is unregistered and outside every reserved namespace; KernelError
    otherwise. Its obligations are checked separately (`certificate.check`)."""
    reg = load() if registry is None else registry
    cid = cert["id"]
    if not isinstance(cert["statement"], list):
        raise KernelError("statement must be a list of propositions")
    entry = reg.claims.get(cid)
    if entry is None:
        if namespace(cid) in reg.namespaces:
            raise KernelError(
                f"claim {cid!r} is not registered (the namespace {namespace(cid)!r} is "
                "reserved by the claim registry)"
            )
        return False
    for word, value in entry.words:
        if cert[word] != value:
            raise KernelError(
                f"{word} is not the registered {word} of claim {cid!r}: the certificate "
                "is about another claim"
            )
    given = [proposition_hash(p) for p in cert["statement"]]
    if cert["verdict"] == "proved":
        if given == list(entry.propositions):
            return True
        if len(given) != len(entry.propositions):
            raise KernelError(
                f"statement: {len(given)} propositions, but claim {cid!r} is registered "
                f"with {len(entry.propositions)} (a cut-down or another claim)"
            )
        i = next(i for i, (g, w) in enumerate(zip(given, entry.propositions), 1) if g != w)
        raise KernelError(
            f"statement {i} is not proposition {i} of claim {cid!r} as registered (another "
            "claim, or the model or the claim changed)"
        )
    registered = set(entry.propositions)
    for i, h in enumerate(given, 1):
        if h not in registered:
            raise KernelError(
                f"refuted statement {i} is not a proposition of claim {cid!r} as registered: "
                "the certificate refutes something else (a flipped verdict, another claim, "
                "or the claim as derived from a changed model)"
            )
    return True
