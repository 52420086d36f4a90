#!/usr/bin/env python3
"""The symbolic engine on the oracles' checkpoint family (issue 26, point 5).

- 2pc with E unbounded (`type Epoch = Int`, no bound on the trainer): AtomicRecovery
  proved for K = 2..8 by `--engine symbolic`, each timed (in-process check of the spec, so
  without the interpreter's start-up), with the method and the invariant's size;
- naive with E unbounded: the counterexample at its shortest length (Advance, Persist,
  Crash: 3 steps);
- the peer: the explicit engine (`--engine auto`) on finite E = 1, 2, ... until a run
  hits its --budget timeout (unknown); the largest E it finished, its time, the symbolic
  engine's time on that same finite instance and on E unbounded, and the ratio
  explicit / symbolic.

Verdicts are checked (2pc holds, naive fails in 3, the explicit state count is the oracles'
closed form); times are printed, never asserted.

Usage: python bench/symbolic.py [--k 2..8] [--budget S] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "oracles"))
from family import closed_form, spec  # noqa: E402

from fito.check.options import CheckOptions  # noqa: E402
from fito.pipeline import check_source  # noqa: E402
from fito.source import Source  # noqa: E402


def unbounded(k: int, variant: str) -> str:
    """The family with E unbounded: epochs are Int and the trainer advances forever."""
    text = spec(k, 1, variant).replace("assert always true\n", "")
    text = text.replace("type Epoch = 0..E", "type Epoch = Int").replace("g < E & ", "")
    return text.replace("const E = 1\n", "")


def finite(k: int, e: int, variant: str) -> str:
    return spec(k, e, variant).replace("assert always true\n", "")


def run(text: str, engine: str, timeout: float) -> tuple[str, int, int, float, str]:
    """(verdict, trace length, states, seconds, proof method) of the one assertion."""
    options = CheckOptions(engine=engine, timeout=timeout)
    start = time.perf_counter()
    report = check_source(Source("family.fito", text), options)
    seconds = time.perf_counter() - start
    errors = [d for d in report.diagnostics if d.is_error]
    assert not errors, errors
    (v,) = report.verdicts
    return v.verdict, len(v.trace), v.states, seconds, v.proof or ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--k", default="2..8", help="K range, lo..hi")
    ap.add_argument("--budget", type=float, default=5.0, help="seconds per explicit run")
    ap.add_argument("--quick", action="store_true", help="K = 2..3, budget 1 s")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.k.split(".."))
    budget = args.budget
    if args.quick:
        lo, hi, budget = 2, 3, 1.0
    print("2pc, E unbounded: AtomicRecovery by --engine symbolic")
    print(f"{'K':>2}  {'verdict':>7}  {'proof':>11}  {'seconds':>7}")
    for k in range(lo, hi + 1):
        verdict, _, _, seconds, proof = run(unbounded(k, "2pc"), "symbolic", 60)
        assert verdict == "holds", (k, verdict)
        print(f"{k:>2}  {verdict:>7}  {proof:>11}  {seconds:7.2f}")
    print("\nnaive, E unbounded: the shortest counterexample")
    for k in range(lo, hi + 1):
        verdict, length, _, seconds, _ = run(unbounded(k, "naive"), "symbolic", 60)
        assert (verdict, length) == ("fails", 3), (k, verdict, length)
        print(f"K={k}: fails in {length} steps, {seconds:.2f} s")
    print(f"\n2pc: the explicit engine on the largest finite E it finishes in {budget:g} s")
    head = f"{'K':>2}  {'E':>2}  {'states':>10}  {'explicit s':>10}  {'symbolic s':>10}"
    print(f"{head}  {'ratio':>6}  {'symbolic, E unbounded s':>23}")
    for k in range(lo, hi + 1):
        best = None
        e = 1
        while True:
            verdict, _, states, seconds, _ = run(finite(k, e, "2pc"), "auto", budget)
            if verdict == "unknown":
                break
            assert (verdict, states) == ("holds", closed_form(k, e, "2pc")), (k, e, states)
            best = (e, states, seconds)
            e += 1
        if best is None:
            print(f"{k:>2}  -- the explicit engine finishes no E within {budget:g} s")
            continue
        e, states, seconds = best
        _, _, _, sym, _ = run(finite(k, e, "2pc"), "symbolic", 60)
        _, _, _, sym_unbounded, _ = run(unbounded(k, "2pc"), "symbolic", 60)
        print(
            f"{k:>2}  {e:>2}  {states:>10,}  {seconds:>10.2f}  {sym:>10.2f}  "
            f"{seconds / sym:>6.1f}  {sym_unbounded:>23.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
