#!/usr/bin/env python3
"""fito against SPIN on the published models of bench/models and the oracles' 2pc family.

Each model is generated at its bench size (or, with --quick, its small size) in fito and in
Promela (bench/models/README.md). Both tools decide it from scratch: fito is timed as the
whole `python -m fito check` command (start-up, parsing, compiling and exploring every
assertion of the file), byte-compiled and run once before timing as an installed fito is
(bench/models/harness.py, `prepare_fito`); SPIN as `spin -o2 -o3 -a` +
`gcc -O2 -DNOREDUCE -DSAFETY` + `./pan -c0` (exhaustive: no partial-order reduction, no
statement merging, no dead-variable reset). Peak memory is each process's own maximum
resident set; bytes per state are that peak less the same tool's peak on a one-state model,
over the states stored. The run checks that the verdicts agree and that the state counts are
equal wherever the model says the two correspond (plus its documented offset), and prints
the ratio fito/SPIN of time to verdict.

The 2pc family (issue #3, point 8) keeps its own method: AtomicRecovery, E fixed, each K,
fito's `check` against `spin -a` + gcc + `./pan`, the state count checked against the
oracles' closed form.

Usage: python bench/vs_spin.py [--quick] [--models NAME ...] [--set NAME:P=V ...]
                               [--variants] [--timeout S] [--k 8] [--e 5] [--no-2pc]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "oracles"))
sys.path.insert(0, str(ROOT / "bench" / "models"))
import harness  # noqa: E402
from family import closed_form, spec  # noqa: E402

TRIVIAL_FITO = "channel a\nprocess P = a -> P\nsystem P\nassert :[deadlock free]\n"
TRIVIAL_PML = "bit b;\nactive proctype P() { do :: b = 0 od }\n"


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the table: a model instance measured by both tools."""

    label: str
    fito: harness.FitoResult
    spin: harness.SpinResult
    expected_states: int | None  # what fito's count must be (None: not comparable)
    agree: bool  # verdicts (and trail lengths) agree


def baselines(work: Path) -> tuple[float, float]:
    """Peak MB of each tool on a one-state model (start-up, interpreter, hash table)."""
    d = work / "baseline"
    d.mkdir()
    (d / "model.fito").write_text(TRIVIAL_FITO)
    (d / "model.pml").write_text(TRIVIAL_PML)
    return harness.run_fito(d / "model.fito").run.mb, harness.run_spin(d / "model.pml").mb


def verdicts_agree(f: harness.FitoResult, s: harness.SpinResult) -> bool:
    """No SPIN error exactly when every fito assertion holds; else the same kind fails
    (and, with a breadth-first trail, in as many steps)."""
    if not f.assertions or any(a[2] not in ("holds", "fails") for a in f.assertions):
        return False
    failed = [a for a in f.assertions if a[2] == "fails"]
    kinds = {"deadlock" if a[1] == "deadlock" else "assertion" for a in failed}
    if kinds != ({s.error} if s.error else set()):
        return False
    return s.trail < 0 or all(a[4] == s.trail for a in failed)


def measure_model(
    name: str, variant: str, params: dict[str, int], work: Path, timeout: float | None
) -> Row:
    model = harness.load(name)
    out = work / f"{name}-{variant or 'ok'}"
    fito_path, pml = harness.write(model, params, variant, out)
    f = harness.run_fito(fito_path, timeout=timeout)
    s = harness.run_spin(pml, bfs="expect: fails" in fito_path.read_text())  # trails: BFS
    extra = model.EXTRA_FITO_STATES
    expected = None if extra is None else s.states + extra
    label = f"{name}{'/' + variant if variant else ''} " + ",".join(
        f"{k}={v}" for k, v in params.items()
    )
    return Row(label, f, s, expected, verdicts_agree(f, s))


def measure_2pc(k: int, e: int, work: Path, timeout: float | None) -> Row:
    d = work / f"2pc-{k}-{e}"
    d.mkdir()
    path = d / "model.fito"
    path.write_text(spec(k, e, "2pc").replace("assert always true\n", ""))
    from subprocess import run

    pml = run(
        [sys.executable, str(ROOT / "tests/oracles/spin/gen.py"), str(k), str(e), "2pc"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (d / "model.pml").write_text(pml)
    f = harness.run_fito(path, timeout=timeout)
    s = harness.run_spin(d / "model.pml")
    return Row(f"2pc K={k},E={e}", f, s, closed_form(k, e, "2pc"), verdicts_agree(f, s))


HEAD = (
    f"{'model':<34} {'states':>10} {'fito s':>8} {'SPIN s':>7} {'(build':>7} {'pan)':>6} "
    f"{'fito/SPIN':>9} {'fito MB':>8} {'SPIN MB':>8} {'fito B/st':>9} {'SPIN B/st':>9}  check"
)


def show(row: Row, base: tuple[float, float]) -> bool:
    """Print one row; whether its counts and verdicts are as they must be."""
    f, s = row.fito, row.spin
    states = f.states if f.states > 0 else s.states
    counts_ok = row.expected_states is None or f.states == row.expected_states
    per = [max(mb - b, 0.0) * 2**20 / states for mb, b in ((f.run.mb, base[0]), (s.mb, base[1]))]
    if not f.assertions:
        note = "FITO GAVE NO VERDICT (killed or error)"
    elif any(a[2] == "unknown" for a in f.assertions):
        note = f"FITO UNKNOWN at {max(a[3] for a in f.assertions):,} states (limit)"
    elif not row.agree:
        note = "VERDICTS DIFFER"
    elif not counts_ok:
        note = f"COUNTS DIFFER: fito {f.states:,}, SPIN {s.states:,}"
    else:
        note = "ok"
    if s.trail >= 0 and row.agree:
        note += f" (counterexample: {s.trail} steps in both)"
    if row.expected_states is None:
        note += f" (counts not comparable; SPIN {s.states:,})"
    elif row.expected_states != s.states:
        note += f" (SPIN {s.states:,} + {row.expected_states - s.states})"
    print(
        f"{row.label:<34} {states:>10,} {f.run.seconds:>8.2f} {s.seconds:>7.2f} "
        f"{s.compile_seconds:>7.2f} {s.search_seconds:>6.2f} {f.run.seconds / s.seconds:>9.2f} "
        f"{f.run.mb:>8.0f} {s.mb:>8.0f} {per[0]:>9.0f} {per[1]:>9.0f}  {note}",
        flush=True,
    )
    return note.startswith("ok")


def instances(args: argparse.Namespace) -> list[tuple[str, str, dict[str, int]]]:
    """(model, variant, parameters) for every instance the options select."""
    chosen = args.models or harness.names()
    unknown = sorted(set(chosen) - set(harness.names()))
    if unknown:
        known = ", ".join(harness.names())
        raise SystemExit(f"unknown models: {', '.join(unknown)}; known: {known}")
    out = []
    for name in chosen:
        model = harness.load(name)
        params = dict(model.SMALL if args.quick else model.BENCH)
        for item in args.set:
            target, _, assignment = item.partition(":")
            key, _, value = assignment.partition("=")
            if target == name and key in params:
                params[key] = int(value)
        variants = sorted(model.VARIANTS) if args.variants else [""]
        out += [(name, v, params) for v in variants]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small instances (the tests' sizes)")
    ap.add_argument("--models", nargs="+", metavar="NAME", help="only these models")
    ap.add_argument(
        "--set",
        nargs="+",
        default=[],
        metavar="NAME:P=V",
        help="override a parameter, e.g. peterson:N=5",
    )
    ap.add_argument(
        "--variants",
        action="store_true",
        help="the failing variants too (SPIN breadth-first, trails compared)",
    )
    ap.add_argument("--timeout", type=float, help="stop fito after this many seconds")
    ap.add_argument("--k", type=int, nargs="+", help="2pc family sizes (default 8; quick 4)")
    ap.add_argument("--e", type=int, default=5)
    ap.add_argument("--no-2pc", action="store_true", help="leave out the 2pc family")
    args = ap.parse_args()
    if not harness.spin_available():
        print("SPIN or gcc is not installed (apt-get install spin gcc)")
        return 2
    ks = [] if args.no_2pc else args.k or ([4] if args.quick else [8])
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base = baselines(work)
        print(
            f"fito (whole `check` command) vs SPIN (spin -o2 -o3 -a + gcc + pan); baselines "
            f"{base[0]:.0f} MB and {base[1]:.0f} MB are subtracted for bytes per state"
        )
        print(harness.prepare_fito())
        print(HEAD)
        good = [
            show(measure_model(n, v, p, work, args.timeout), base) for n, v, p in instances(args)
        ]
        good += [show(measure_2pc(k, args.e, work, args.timeout), base) for k in ks]
    print(f"{sum(good)} of {len(good)} instances agree")
    return 0 if all(good) else 1


if __name__ == "__main__":
    sys.exit(main())
