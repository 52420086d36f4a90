#!/usr/bin/env python3
"""The fixed cost of `fito check`: the whole command on a one-state spec, against the bare
interpreter's start-up and SPIN's whole pipeline on a one-state model, in the same run.

fito is prepared as bench/vs_spin.py prepares it (byte-compiled and run once:
bench/models/harness.py, `prepare_fito`). Each command runs --repeat times, interleaved, and
the minimum wall time of each is kept (background load only ever adds). Printed: the times,
fito's time less the interpreter's (what fito itself costs), and the ratio fito/SPIN of
time to verdict on the trivial model. Figures are printed, never asserted.

Usage: python bench/startup.py [--repeat 9] [--no-spin]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "models"))
import harness  # noqa: E402

TRIVIAL_FITO = "channel a\nprocess P = a -> P\nsystem P\nassert :[deadlock free]\n"
TRIVIAL_PML = "bit b;\nactive proctype P() { do :: b = 0 od }\n"
SPIN = "SPIN (spin -a, gcc, pan)"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--no-spin", action="store_true", help="leave out SPIN")
    args = ap.parse_args()
    spin = not args.no_spin and harness.spin_available()
    print(harness.prepare_fito())
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        spec, pml = Path(tmp) / "trivial.fito", Path(tmp) / "model.pml"
        spec.write_text(TRIVIAL_FITO)
        pml.write_text(TRIVIAL_PML)
        for _ in range(args.repeat):
            runs = {
                "python -c pass": harness.measure([sys.executable, "-c", "pass"], ROOT).seconds,
                "fito check": harness.run_fito(spec).run.seconds,
            }
            if spin:
                runs[SPIN] = harness.run_spin(pml).seconds
            for name, seconds in runs.items():
                best[name] = min(seconds, best.get(name, seconds))
    for name, seconds in best.items():
        print(f"{name:<28} {seconds:6.3f} s  (min of {args.repeat})")
    print(f"{'fito less the interpreter':<28} {best['fito check'] - best['python -c pass']:6.3f} s")
    if spin:
        print(f"fito/SPIN on the trivial model: {best['fito check'] / best[SPIN]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
