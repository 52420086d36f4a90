"""The distributed search (`--distributed`, on 2 and 3 ranks of one machine) gives the
one-process answers: verdicts, state and transition counts, reasons, model errors and the
very counterexamples, on the shipped specs, random specs and the oracles' checkpoint family
(tests/oracles/family.py, the fito version of /work/shared/oracles' reference model)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.distributed.mpirun import ROOT, answers_of, distributed_answers, mpiexec
from tests.helpers.random_specs import Gen
from tests.helpers.symmetric_specs import SymGen, orbits_2pc, states_2pc, two_phase_commit
from tests.oracles.family import closed_form, spec

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.skipif(mpiexec() is None, reason="needs mpiexec (the mpich wheel)")

SHIPPED = sorted(p for p in (ROOT / "specs").glob("*.fito") if "assert " in p.read_text())
SEEDS = [3, 17, 101, 2024, 31337, 77, 5, 9001]


def _compare(
    files: list[Path], ranks: int, tmp: Path, seconds: float, limit: int, speculate_all: bool
) -> int:
    """Distributed against one process on each file; returns how many verdicts were compared
    (a verdict either run gave up on is left out)."""
    got = distributed_answers(ranks, files, tmp / "answers", seconds, limit, speculate_all)
    compared = 0
    for f, theirs in zip(files, got):
        ours = answers_of(f.read_text(), timeout=seconds, max_states=limit)
        assert len(ours) == len(theirs), f.name
        for a, b in zip(ours, theirs):
            if a[-1] or b[-1]:
                continue
            assert a == b, f"{f.name}: {a[0]}"
            compared += 1
    return compared


SMALL = ("peterson", "leader_election", "firmware_rollout", "checkpoint_naive", "bilateral_commit")


def _family(tmp: Path, cases: tuple) -> list[Path]:
    out = []
    for k, e, variant in cases:
        f = tmp / f"family_{k}_{e}_{variant}.fito"
        f.write_text(spec(k, e, variant))
        out.append(f)
    return out


def test_small_shipped_specs_and_the_2pc_family_agree_on_two_ranks(tmp_path: Path) -> None:
    family = _family(tmp_path, ((3, 2, "2pc"), (4, 2, "naive")))
    wide = tmp_path / "wide.fito"  # a cell too wide to pack: every rank searches alone
    wide.write_text(
        "channel a\nconst B = 999999999999999999\ndomain x: -B*B..B*B = 0 durable\n"
        "process P = x < 5 & a { x := x + 1 } -> P\nsystem P\nassert always x < 4\n"
    )
    files = [ROOT / "specs" / f"{name}.fito" for name in SMALL] + family + [wide]
    assert _compare(files, 2, tmp_path, 60, 200_000, False) >= 16
    got = distributed_answers(2, family[:1], tmp_path / "family")
    assert got[0][0][2] == closed_form(3, 2, "2pc")  # the reference's closed form


@pytest.mark.slow
@pytest.mark.parametrize(("ranks", "speculate_all"), [(2, False), (3, True)])
def test_every_shipped_spec_agrees(ranks: int, speculate_all: bool, tmp_path: Path) -> None:
    files = SHIPPED + _family(tmp_path, ((5, 3, "2pc"), (4, 3, "naive")))
    assert _compare(files, ranks, tmp_path, 60, 200_000, speculate_all) >= 30


@pytest.mark.slow
@pytest.mark.parametrize(("ranks", "speculate_all"), [(3, True)])
def test_random_specs_agree(ranks: int, speculate_all: bool, tmp_path: Path) -> None:
    files = []
    for seed in SEEDS:
        f = tmp_path / f"seed_{seed}.fito"
        f.write_text(Gen(seed).spec())
        files.append(f)
    assert _compare(files, ranks, tmp_path, 10, 20_000, speculate_all) > 0


@pytest.mark.slow
@pytest.mark.parametrize(("ranks", "speculate_all"), [(2, False), (3, True)])
def test_more_random_specs_and_a_larger_family_agree(
    ranks: int, speculate_all: bool, tmp_path: Path
) -> None:
    files = []
    for seed in range(1000, 1030):
        f = tmp_path / f"seed_{seed}.fito"
        f.write_text(Gen(seed, forms=seed % 2 == 0).spec())
        files.append(f)
    files += _family(tmp_path, ((6, 3, "2pc"), (5, 3, "naive")))
    assert _compare(files, ranks, tmp_path, 10, 50_000, speculate_all) > 0


@pytest.mark.slow
def test_symmetry_reduced_runs_agree_and_count_the_orbits(tmp_path: Path) -> None:
    """With issue 24's symmetry reduction, canonical representatives are what is hashed to
    an owner: the distributed run stores the orbits the one-process run stores, stands for
    the same unreduced states, and finds the same (expanded) counterexamples."""
    files = []
    for k, e in ((4, 2), (5, 2)):
        f = tmp_path / f"sym_2pc_{k}_{e}.fito"
        f.write_text(two_phase_commit(k, e))
        files.append(f)
    broken = tmp_path / "sym_2pc_broken.fito"  # commits before the domains persist
    broken.write_text(two_phase_commit(3, 2).replace("c <= p[i]", "c < p[i]"))
    files.append(broken)
    for seed in range(4):
        f = tmp_path / f"symgen_{seed}.fito"
        f.write_text(SymGen(seed).spec())
        files.append(f)
    assert _compare(files, 2, tmp_path, 30, 50_000, True) >= 8
    got = distributed_answers(3, files[:2], tmp_path / "orbits")
    for (k, e), answers in zip(((4, 2), (5, 2)), got):
        assert (answers[0][2], answers[0][7]) == (orbits_2pc(k, e), states_2pc(k, e))
