"""Shrinking a failing case while it fails the same way, and saving it in the corpus."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from .cases import Case
from .outcome import HANG, MEMORY, Outcome

Runner = Callable[[Case], Outcome]


def same_failure(a: Outcome, b: Outcome) -> bool:
    """b fails as a did: the same signature (hangs and memory: the same kind and command)."""
    if not b.failed or a.kind != b.kind:
        return False
    if a.kind in (HANG, MEMORY):  # a kill lands anywhere: the same kind of run suffices
        return a.signature.split()[:2] == b.signature.split()[:2]
    return a.signature == b.signature


def minimise(case: Case, outcome: Outcome, run: Runner, seconds: float) -> Case:
    """A smaller case that still fails like `outcome` (greedy chunk removal, then bytes)."""
    deadline = time.monotonic() + seconds

    def fails(c: Case) -> bool:
        return time.monotonic() < deadline and same_failure(outcome, run(c))

    case = _shrink_argv(case, fails)
    for index in range(len(case.files)):
        for split in (_lines, _chars):
            name, data = case.files[index]
            units = split(data)
            if len(units) > 5000:
                continue

            def with_units(us: list[bytes], i: int = index, n: str = name, c: Case = case) -> Case:
                files = list(c.files)
                files[i] = (n, b"".join(us))
                return c.with_files(tuple(files))

            kept = _remove_chunks(units, lambda us: fails(with_units(us)))
            case = with_units(kept)
    return case


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _chars(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def _remove_chunks(units: list[bytes], fails: Callable[[list[bytes]], bool]) -> list[bytes]:
    size = max(1, len(units) // 2)
    while size >= 1 and units:
        i = 0
        while i < len(units):
            trial = units[:i] + units[i + size :]
            if trial != units and fails(trial):
                units = trial
            else:
                i += size
        size //= 2
    return units


def _shrink_argv(case: Case, fails: Callable[[Case], bool]) -> Case:
    i = 1
    while i < len(case.argv):
        for n in (2, 1):
            trial = case.argv[:i] + case.argv[i + n :]
            if len(trial) < len(case.argv) and fails(case.with_argv(trial)):
                case = case.with_argv(trial)
                break
        else:
            i += 1
    return case


def save(case: Case, outcome: Outcome, corpus: Path) -> Path:
    """corpus/<kind>/<key>.json: the case, what it did and who fixes it."""
    folder = corpus / outcome.kind
    folder.mkdir(parents=True, exist_ok=True)
    data = case.to_json()
    data.update(
        {
            "kind": outcome.kind,
            "signature": outcome.signature,
            "owner": outcome.owner,
            "status": outcome.status,
            "detail": outcome.detail.strip().splitlines()[-25:],
        }
    )
    path = folder / f"{case.key()}.json"
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def known_signatures(corpus: Path) -> set[str]:
    """The signatures the corpus holds already (a campaign saves each failure once)."""
    out = set()
    for path in corpus.glob("*/*.json"):
        try:
            data = json.loads(path.read_text("utf-8"))
        except ValueError:
            continue
        out.add(str(data.get("signature", "")))
    return out
