"""Claims and their outcomes: what `proofs/*.py` files state and what their functions return."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

PROVED, REFUTED, UNKNOWN = "proved", "refuted", "unknown"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_METHOD = re.compile(r"[a-z0-9][a-z0-9_+-]*\Z")


@dataclass(frozen=True, slots=True)
class Obligation:
    """One certificate obligation: a kind and its JSON payload (see docs/proofs.md)."""

    kind: str
    payload: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The JSON object written into the certificate."""
        return {"kind": self.kind, **self.payload}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a claim's function returns: a verdict, its obligations, and a reason."""

    verdict: str
    obligations: tuple[Obligation, ...] = ()
    reason: str = ""


def proved(*obligations: Obligation) -> Outcome:
    """The claim holds; the obligations are what the kernel re-checks."""
    return Outcome(PROVED, _obligations(obligations))


def refuted(*obligations: Obligation, reason: str = "") -> Outcome:
    """The claim is false; the obligations (a counterexample, ...) show it."""
    return Outcome(REFUTED, _obligations(obligations), reason)


def unknown(reason: str) -> Outcome:
    """Neither proved nor refuted (solver unknown, timeout, unsupported): never a proof."""
    return Outcome(UNKNOWN, (), reason or "unknown")


def conjunction(*outcomes: Outcome) -> Outcome:
    """All parts hold: refuted if any part is refuted, else unknown if any is, else proved."""
    for verdict in (REFUTED, UNKNOWN):
        hits = [o for o in outcomes if o.verdict == verdict]
        if hits:
            obligations = tuple(ob for o in hits for ob in o.obligations)
            return Outcome(verdict, obligations, "; ".join(o.reason for o in hits if o.reason))
    return Outcome(PROVED, tuple(ob for o in outcomes for ob in o.obligations))


def _obligations(items: Iterable[Any]) -> tuple[Obligation, ...]:
    out = []
    for item in items:
        if isinstance(item, Obligation):
            out.append(item)
        elif isinstance(item, (list, tuple)) and all(isinstance(x, Obligation) for x in item):
            out.extend(item)
        else:
            raise TypeError(f"expected an Obligation, got {type(item).__name__}")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Claim:
    """A stated claim: id, title, statement in words, the model it is about, the method, and
    run()."""

    id: str
    title: str
    statement: str
    model: str
    method: str
    run: Callable[[], Outcome] = field(repr=False)
    timeout: float | None = None
    source: str = ""

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ValueError(f"claim id {self.id!r} must match [A-Za-z0-9][A-Za-z0-9._-]*")
        if not _METHOD.match(self.method):
            raise ValueError(
                f"claim {self.id}: method {self.method!r} must match [a-z0-9][a-z0-9_+-]*"
            )
        for name in ("title", "statement", "model"):
            if not getattr(self, name).strip():
                raise ValueError(f"claim {self.id}: {name} is empty")

    def __call__(self) -> Outcome:
        return self.run()


_REGISTRY: list[Claim] = []


def register(c: Claim) -> Claim:
    """Add a claim to the registry that `fito prove` collects after importing a file."""
    _REGISTRY.append(c)
    return c


def registered() -> list[Claim]:
    """Every claim registered so far, in registration order."""
    return list(_REGISTRY)


def claim(
    *,
    id: str,
    title: str,
    model: str,
    method: str,
    statement: str | None = None,
    timeout: float | None = None,
) -> Callable[[Callable[[], Outcome]], Claim]:
    """Decorator: state a claim whose function discharges it (the statement defaults to the
    docstring)."""

    def wrap(fn: Callable[[], Outcome]) -> Claim:
        text = statement if statement is not None else " ".join((fn.__doc__ or "").split())
        code = getattr(fn, "__code__", None)
        source = f"{code.co_filename}:{code.co_firstlineno}" if code else ""
        return register(Claim(id, title, text, model, method, fn, timeout, source))

    return wrap
