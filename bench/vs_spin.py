#!/usr/bin/env python3
"""fito against SPIN on the oracles' 2pc checkpoint family, in one run (issue #3, point 8).

For each K (E fixed) both tools decide AtomicRecovery from scratch: fito is timed as the
whole `fito check` command (start-up, parsing, compiling and exploring); SPIN as
`spin -a` + `gcc` + `./pan` (exhaustive, no partial-order reduction, as in the oracles
README). Peak memory is each process's own maximum resident set. Prints a table and the
ratio fito/SPIN of time to verdict.

Usage: python bench/vs_spin.py [--k 5 6 7 8] [--e 5] [--out bench/out]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "oracles"))
from family import closed_form, spec  # noqa: E402


def measure(cmd: list[str], cwd: Path) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB and stdout+stderr of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_maxrss / 1024.0, out


def run_fito(k: int, e: int, work: Path) -> dict:
    text = spec(k, e, "2pc").replace("assert always true\n", "")
    path = work / f"ckpt_{k}_{e}.fito"
    path.write_text(text)
    seconds, mb, out = measure([sys.executable, "-m", "fito", "check", "--format", "json", str(path)], work)
    report = json.loads(out)
    (a,) = report["files"][0]["assertions"]
    return {"seconds": seconds, "mb": mb, "states": a["states"], "verdict": a["verdict"],
            "explore_seconds": a["seconds"]}


def run_spin(k: int, e: int, work: Path) -> dict:
    pml = subprocess.run([sys.executable, str(ROOT / "tests/oracles/spin/gen.py"), str(k), str(e), "2pc"],
                         capture_output=True, text=True, check=True).stdout
    d = work / f"spin_{k}_{e}"
    d.mkdir(exist_ok=True)
    (d / "m.pml").write_text(pml)
    t1, m1, _ = measure(["spin", "-a", "m.pml"], d)
    t2, m2, _ = measure(["gcc", "-O2", "-DNOREDUCE", "-DSAFETY", "-DMEMLIM=16000", "-o", "pan", "pan.c"], d)
    t3, m3, out = measure(["./pan", "-w24"], d)
    states = int(re.search(r"(\d+) states, stored", out).group(1))  # type: ignore[union-attr]
    verdict = "fails" if "assertion violated" in out else "holds"
    return {"seconds": t1 + t2 + t3, "mb": max(m1, m2, m3), "states": states, "verdict": verdict,
            "explore_seconds": t3, "compile_seconds": t1 + t2}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="+", default=[5, 6, 7, 8])
    ap.add_argument("--e", type=int, default=5)
    args = ap.parse_args()
    if shutil.which("spin") is None or shutil.which("gcc") is None:
        print("SPIN or gcc is not installed (apt-get install spin gcc)")
        return 2
    print(f"2pc family, E = {args.e}: fito (whole command) vs SPIN (spin -a + gcc + pan)")
    print(f"{'K':>2} {'states':>10} {'fito s':>8} {'SPIN s':>8} {'fito st/s':>10} {'SPIN st/s':>10} "
          f"{'fito MB':>8} {'SPIN MB':>8} {'fito/SPIN':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for k in args.k:
            f = run_fito(k, args.e, work)
            s = run_spin(k, args.e, work)
            expected = closed_form(k, args.e, "2pc")
            assert f["states"] == s["states"] == expected, (f, s, expected)
            assert f["verdict"] == s["verdict"] == "holds"
            print(f"{k:>2} {f['states']:>10,} {f['seconds']:>8.2f} {s['seconds']:>8.2f} "
                  f"{f['states'] / f['seconds']:>10,.0f} {s['states'] / s['seconds']:>10,.0f} "
                  f"{f['mb']:>8.0f} {s['mb']:>8.0f} {f['seconds'] / s['seconds']:>9.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
