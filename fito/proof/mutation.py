"""Mutation of certificates, one leaf at a time, for testing the kernel (standard library only).

Every leaf of a certificate is changed in turn: numbers (+1), rationals (+1), truth values
(negated), symbols and domains (renamed), operators (swapped for one of the same arity),
text (edited), the verdict (flipped) and the hash (one hex digit); the statement's leaves
too (its quantifiers, symbols, domains and formulas). A mutant either keeps the recorded hash
(so the kernel must reject it for its hash) or has it recomputed (so the semantic checks
decide).
"""

from __future__ import annotations

import copy
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from fito.proof.kernel.certificate import certificate_hash, check
from fito.proof.kernel.expr import ARITY, is_symbol

_RATIONAL = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?\Z")
SWAP = {
    "+": "*",
    "*": "+",
    "/": "*",
    "^": "*",
    "min": "max",
    "max": "min",
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "=": "!=",
    "!=": "=",
    "and": "or",
    "or": "and",
    "implies": "and",
    "div": "mod",
    "mod": "div",
}
_TEXT_FIELDS = ("title", "description", "model", "method", "note", "tool", "version", "id")
Path = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Mutant:
    """One mutated certificate: where, what changed, and which obligation (1-based) it touches."""

    path: Path
    description: str
    certificate: dict[str, Any]
    obligation: int | None
    rehashed: bool
    statement: int | None = None  # 1-based: the statement entry changed, if any


def leaves(data: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every (path, value) leaf of a JSON value; lists whose head is an operator yield the head."""
    if isinstance(data, dict):
        for k in data:
            yield from leaves(data[k], path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from leaves(v, path + (i,))
    else:
        yield path, data


def mutate_value(path: Path, value: Any, parent: Any) -> Any:
    """The mutated value of one leaf, or None when the leaf is not mutated."""
    key = path[-1] if path else None
    if key == "sha256" and len(path) == 1 and isinstance(value, str) and value:
        return ("0" if value[0] != "0" else "1") + value[1:]
    if key == "verdict" and len(path) == 1:
        return "refuted" if value == "proved" else "proved"
    if key == "format" and len(path) == 1:
        return "fito-certificate/2"
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if not isinstance(value, str):
        return None
    if key == 0 and isinstance(parent, list) and value in ARITY:
        return SWAP.get(value)
    if _RATIONAL.match(value):
        f = Fraction(value) + 1
        return f"{f.numerator}/{f.denominator}" if f.denominator != 1 else str(f.numerator)
    if key in _TEXT_FIELDS or (len(path) >= 2 and path[0] == "producer"):
        return value + " (mutated)"
    if key == "kind":
        return value + "_x"
    if is_symbol(value):
        return value + "_m"
    return value + "x"


def _get(data: Any, path: Path) -> Any:
    for p in path:
        data = data[p]
    return data


def _replaced(data: Any, path: Path, new: Any) -> Any:
    """A copy of data with the leaf at path replaced, sharing every untouched branch."""
    if not path:
        return new
    out = copy.copy(data)
    out[path[0]] = _replaced(data[path[0]], path[1:], new)
    return out


Site = tuple[Path, Any, Any]


def sites(cert: dict[str, Any], *, rehash: bool = False) -> list[Site]:
    """Every (path, old value, new value) a single-leaf mutation can change (cheap to list)."""
    out = []
    for path, value in leaves(cert):
        if rehash and path == ("sha256",):
            continue
        parent = _get(cert, path[:-1]) if path else None
        new = mutate_value(path, value, parent)
        if new is not None and new != value:
            out.append((path, value, new))
    return out


def mutant(cert: dict[str, Any], site: Site, *, rehash: bool) -> Mutant:
    """The certificate with one site changed (and its hash recomputed when asked)."""
    path, value, new = site
    m = _replaced(cert, path, new)
    if rehash:
        m["sha256"] = certificate_hash(m)
    index = path[1] + 1 if len(path) > 1 and path[0] == "obligations" else None
    entry = path[1] + 1 if len(path) > 1 and path[0] == "statement" else None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
    return Mutant(path, f"{where}: {value!r} -> {new!r}", m, index, rehash, entry)


def mutants(cert: dict[str, Any], *, rehash: bool) -> Iterator[Mutant]:
    """Every single-leaf mutant of a certificate (the hash leaf only when not rehashing)."""
    for site in sites(cert, rehash=rehash):
        yield mutant(cert, site, rehash=rehash)


def summarize(cert: dict[str, Any]) -> dict[str, int]:
    """Counts for one certificate: mutants, hash-rejected, and rehashed rejected/accepted."""
    plain = list(mutants(cert, rehash=False))
    rehashed = list(mutants(cert, rehash=True))
    verdicts = [check(m.certificate).accepted for m in rehashed]
    return {
        "mutants": len(plain),
        "hash_rejected": sum(not check(m.certificate).accepted for m in plain),
        "rehashed": len(rehashed),
        "rehashed_rejected": verdicts.count(False),
        "rehashed_accepted": verdicts.count(True),
    }


def main(argv: list[str] | None = None) -> int:
    """`python -m fito.proof.mutation CERT_OR_DIR...`: mutation counts per certificate."""
    paths = []
    for p in (sys.argv[1:] if argv is None else argv) or ["certificates"]:
        paths += (
            sorted(os.path.join(p, n) for n in os.listdir(p) if n.endswith(".json"))
            if os.path.isdir(p)
            else [p]
        )
    total: dict[str, int] = {}
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            counts = summarize(json.load(fh))
        print(f"{path}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
    print(f"{len(paths)} certificates: " + ", ".join(f"{k} {v}" for k, v in total.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
