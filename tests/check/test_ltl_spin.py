"""fito's `ltl` against SPIN's on random specs and random formulas (issue 25, point 4).

The specs are guarded commands, the fragment where the two semantics coincide one to one:
cells are global variables, each fito process `Pi` is one Promela process, each of its
choices `g & ai.j {v := e} -> Pi` (a visible event, so that it resolves the choice) is one
`d_step { g -> v = e }` option of a `do` loop, and the system is their interleaving. A
state where no guard holds is a deadlock in fito and a stuck system in SPIN: both stutter
there under an LTL property. `fair weak` is SPIN's `-f` (weak fairness of every process).
Formulas use every operator but `X` (`[] <> U R W not and or =>`; SPIN's `V` is `R`): the
installed SPIN's formula parser has no `X` (SPIN reads it only when SPIN itself is built
with -DNXT); fito's `X` is checked against the lasso evaluator instead
(tests/check/test_ltl.py). pan is built with -DNOREDUCE (no partial-order reduction).
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.check.ltl_helpers import checked

pytestmark = [
    pytest.mark.slow,
    pytest.mark.spin,
    pytest.mark.skipif(
        shutil.which("spin") is None or shutil.which("gcc") is None, reason="needs spin and gcc"
    ),
]

CELLS = ("v0", "v1")  # 0..2 each; and b: Bool


def _guard(r: random.Random) -> tuple[str, str]:
    k, c = r.randrange(3), r.choice(CELLS)
    return r.choice(
        [
            (f"{c} == {k}", f"{c} == {k}"),
            (f"{c} != {k}", f"{c} != {k}"),
            ("v0 < v1", "v0 < v1"),
            ("b", "b"),
            ("not b", "!b"),
            ("true", "true"),
        ]
    )


def _update(r: random.Random) -> tuple[str, str]:
    c, d, k = r.choice(CELLS), r.choice(CELLS), r.randrange(3)
    return r.choice(
        [
            (f"{c} := ({d} + 1) % 3", f"{c} = ({d} + 1) % 3"),
            (f"{c} := {d}", f"{c} = {d}"),
            (f"{c} := {k}", f"{c} = {k}"),
            ("b := not b", "b = !b"),
            ("b := v0 == v1", "b = (v0 == v1)"),
        ]
    )


def random_model(r: random.Random) -> tuple[str, str]:
    """(fito spec without assertions, Promela model without the ltl claim)."""
    n = r.randrange(1, 4)
    chans = []
    fito_procs, pml_procs = [], []
    for i in range(n):
        fito_opts, pml_opts = [], []
        for j in range(r.randrange(1, 4)):
            (gf, gp), (uf, up) = _guard(r), _update(r)
            chans.append(f"a{i}_{j}")
            fito_opts.append(f"({gf}) & a{i}_{j} {{{uf}}} -> P{i}")
            pml_opts.append(f"  :: d_step {{ ({gp}) -> {up} }}")
        fito_procs.append(f"process P{i} = " + " [] ".join(fito_opts))
        pml_procs.append(f"active proctype P{i}() {{\n  do\n" + "\n".join(pml_opts) + "\n  od\n}")
    init = [r.randrange(3), r.randrange(3), r.choice([False, True])]
    fito = "\n".join(
        [
            "channel " + ", ".join(chans),
            f"domain v0: 0..2 = {init[0]} volatile",
            f"domain v1: 0..2 = {init[1]} volatile",
            f"domain b: Bool = {str(init[2]).lower()} volatile",
            *fito_procs,
            "system " + " ||| ".join(f"P{i}" for i in range(n)),
        ]
    )
    pml = "\n".join(
        [
            f"byte v0 = {init[0]};",
            f"byte v1 = {init[1]};",
            f"bool b = {str(init[2]).lower()};",
            *pml_procs,
        ]
    )
    return fito + "\n", pml + "\n"


ATOMS = [("v0 == 0", "(v0 == 0)"), ("v1 < 2", "(v1 < 2)"), ("b", "b"), ("v0 == v1", "(v0 == v1)")]
UNARY = {"[]": "[]", "<>": "<>", "not": "!"}  # SPIN reads X only when built with -DNXT
BINARY = {"U": "U", "R": "V", "W": "W", "and": "&&", "or": "||", "=>": "->"}


def random_formula(r: random.Random, depth: int = 0) -> tuple[str, str]:
    """(fito formula, SPIN formula), fully parenthesized."""
    k = r.randrange(7 if depth < 3 else 1)
    if k == 0:
        return r.choice(ATOMS)
    if k < 4:
        op = r.choice(list(UNARY))
        f, s = random_formula(r, depth + 1)
        return f"{op} ({f})", f"{UNARY[op]} ({s})"
    op = r.choice(list(BINARY))
    (f1, s1), (f2, s2) = random_formula(r, depth + 1), random_formula(r, depth + 1)
    return f"(({f1}) {op} ({f2}))", f"(({s1}) {BINARY[op]} ({s2}))"


def spin_holds(pml: str, formula: str, fair: bool, d: Path) -> bool:
    (d / "m.pml").write_text(pml + f"ltl p {{ {formula} }}\n")
    for cmd in (["spin", "-a", "m.pml"], ["gcc", "-O0", "-DNOREDUCE", "-o", "pan", "pan.c"]):
        done = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    run = ["./pan", "-a", "-m100000"] + (["-f"] if fair else [])
    out = subprocess.run(run, cwd=d, capture_output=True, text=True, timeout=300).stdout
    m = re.search(r"errors: (\d+)", out)
    assert m is not None, out
    return m.group(1) == "0"


@pytest.mark.parametrize("seed", range(40))
def test_fito_and_spin_agree(seed: int, tmp_path: Path) -> None:
    r = random.Random(seed)
    spec, pml = random_model(r)
    cases = [(random_formula(r), r.random() < 0.4) for _ in range(3)]
    text = spec + "".join(
        f"assert ltl {f}{' fair weak' if fair else ''}\n" for (f, _), fair in cases
    )
    got = [v.verdict for v in checked(text)]
    want = ["holds" if spin_holds(pml, s, fair, tmp_path) else "fails" for (_, s), fair in cases]
    assert got == want, (text, pml, [s for (_, s), _ in cases])
