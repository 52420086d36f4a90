"""`fito lint --model`: protocols become specs that fito's checker decides; the verdicts and
shortest counterexamples agree with an independent enumeration of the same protocol, and the
rules warn exactly where the checker finds a crash that mixes steps."""

from __future__ import annotations

from collections import deque
from itertools import product
from pathlib import Path

import pytest

from fito.lint import rules
from fito.lint.index import build_index
from fito.lint.model import MISSING, RANKS, E, check_spec, spec_text
from fito.lint.rules.common import Protocol
from fito.lint.run import LintOptions, lint_path
from fito.lint.walker import Walker
from tests.lint.corpus_score import corpus_files


# ------------------------------------------------------------------ an independent oracle
def _ops(p: Protocol) -> list[tuple[str, int]]:
    ops = [("save", i) for i in range(len(p.domains))]
    if p.marker or p.marker_after >= 0:
        ops.insert(len(ops) if p.marker_after < 0 else p.marker_after, ("commit", 0))
    return ops


def _loaded(
    p: Protocol,
    files: tuple[int, ...],
    has: frozenset[tuple[int, int]],
    committed: int,
    newest: int,
    d: int,
) -> int:
    if not p.versioned:
        return files[d]
    epoch = committed if (p.marker or p.marker_after >= 0) else newest
    return epoch if (d, epoch) in has else MISSING


def _sequential_successors(p: Protocol, s: tuple) -> list[tuple]:  # type: ignore[type-arg]
    live, pc, files, has, committed, newest, got = s
    n = len(p.domains)
    if pc == "recover":
        got = tuple(_loaded(p, files, has, committed, newest, d) for d in range(n))
        return [(0, 0, files, has, committed, newest, got)]
    out = [(0, "recover", files, has, committed, newest, got)]  # a crash, anywhere
    ops = _ops(p)
    if pc == 0:
        if live < E:
            out.append((live + 1, 1, files, has, committed, newest, got))
        return out
    kind, d = ops[pc - 1]
    nxt = 0 if pc == len(ops) else pc + 1
    if kind == "commit":
        out.append((live, nxt, files, has, live, newest, got))
    elif p.versioned:
        out.append((live, nxt, files, has | {(d, live)}, committed, max(newest, live), got))
    else:
        files = files[:d] + (live,) + files[d + 1 :]
        out.append((live, nxt, files, has, committed, newest, got))
    return out


def _rank_successors(p: Protocol, s: tuple) -> list[tuple]:  # type: ignore[type-arg]
    lives, pcs, files, has, committed, newest, got = s
    if pcs == "recover":
        got = tuple(_loaded(p, files, has, committed, newest, r) for r in range(RANKS))
        return [((0,) * RANKS, (0,) * RANKS, files, has, committed, newest, got)]
    out = [((0,) * RANKS, "recover", files, has, committed, newest, got)]

    def put(t: tuple, i: int, v: object) -> tuple:  # type: ignore[type-arg]
        return t[:i] + (v,) + t[i + 1 :]

    for r in range(RANKS):
        live, pc = lives[r], pcs[r]
        if pc == 0 and live < E:
            out.append(
                (put(lives, r, live + 1), put(pcs, r, 1), files, has, committed, newest, got)
            )
        elif pc == 1:
            after = 2 if p.marker and (p.barrier or r == 0) else 0
            if p.versioned:
                out.append(
                    (
                        lives,
                        put(pcs, r, after),
                        files,
                        has | {(r, live)},
                        committed,
                        newest if p.marker else max(newest, live),
                        got,
                    )
                )
            else:
                out.append(
                    (lives, put(pcs, r, after), put(files, r, live), has, committed, newest, got)
                )
        elif pc == 2 and not p.barrier and r == 0:
            out.append((lives, put(pcs, 0, 0), files, has, live, newest, got))
        elif pc == 3 and r == 0:
            out.append((lives, put(pcs, 0, 0), files, has, live, newest, got))
    if p.barrier and all(pc == 2 for pc in pcs) and len(set(lives)) == 1:
        out.append((lives, (3,) + (0,) * (RANKS - 1), files, has, committed, newest, got))
    return out


def oracle(p: Protocol) -> int | None:
    """The length of the shortest run to a mixed or missing restore, or None."""
    n = RANKS if p.ranks else len(p.domains)
    start = (
        (0,) * RANKS if p.ranks else 0,
        (0,) * RANKS if p.ranks else 0,
        (0,) * n,
        frozenset((d, 0) for d in range(n)),
        0,
        0,
        (0,) * n,
    )
    successors = _rank_successors if p.ranks else _sequential_successors
    seen, queue = {start: 0}, deque([start])
    while queue:
        s = queue.popleft()
        got = s[-1]
        if any(g != got[0] or g > E for g in got):
            return seen[s]
        for t in successors(p, s):
            if t not in seen:
                seen[t] = seen[s] + 1
                queue.append(t)
    return None


def protocols() -> list[Protocol]:
    out = []
    for n, versioned in product((1, 2, 3), (False, True)):
        doms = ("model", "optimizer", "scheduler")[:n]
        out.append(Protocol(False, doms, versioned, False))
        out.append(Protocol(False, doms, versioned, True))
        out.extend(Protocol(False, doms, versioned, False, marker_after=k) for k in range(n))
    for versioned, marker, barrier in product((False, True), repeat=3):
        if marker or not barrier:
            out.append(Protocol(True, ("shard",), versioned, marker, barrier))
    return out


@pytest.mark.parametrize("p", protocols(), ids=lambda p: str(p))
def test_checker_and_oracle_agree_on_verdict_and_shortest_crash(p: Protocol) -> None:
    report = check_spec("protocol.fito", spec_text(p, "test"))
    assert not report.diagnostics
    verdict = report.verdicts[0]
    expected = oracle(p)
    if expected is None:
        assert verdict.verdict == "holds"
    else:
        assert verdict.verdict == "fails" and len(verdict.trace) == expected
        assert "crash" in verdict.trace and verdict.trace[-1] == "restore"


# ------------------------------------------------------------------ the rules agree
def test_rules_warn_exactly_where_the_model_fails(tmp_path: Path) -> None:
    import ast

    checked = 0
    for path in corpus_files():
        index = build_index(ast.parse(path.read_text(encoding="utf-8")))
        if not index.is_training_code:
            continue
        for finding, protocol, _ in rules.protocols(Walker(index).traces()):
            verdict = check_spec("p.fito", spec_text(protocol, str(path))).verdicts[0]
            assert (finding is not None) == (verdict.verdict == "fails"), (path, protocol)
            checked += 1
    assert checked >= 10


def test_model_option_writes_the_spec_and_attaches_the_counterexample(tmp_path: Path) -> None:
    path = Path(__file__).parent / "corpus" / "pytorch_examples" / "resume_latest_bad.py"
    result = lint_path(str(path), LintOptions(model_dir=str(tmp_path)))
    split = [d for d in result.report.diagnostics if d.code == "FITOL001"]
    assert len(split) == 1
    note = split[0].notes[-1]
    spec = tmp_path / f"resume_latest_bad_L{split[0].span.line}.fito"
    assert note.startswith(f"model-checked in {spec}: ") and "crash" in note
    assert spec.exists() and [s.path for s in result.specs] == [str(spec)]
    assert [v.verdict for v in result.specs[0].verdicts] == ["fails"]
