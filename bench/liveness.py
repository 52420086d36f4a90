#!/usr/bin/env python3
"""fito's `ltl` against SPIN's `ltl` (-a) on liveness properties of published models (issue 25).

Each model is written twice, in fito and in Promela, one to one (bench/models/README.md):
the leader election, Peterson's mutex and the alternating bit protocol reuse the generators
of bench/models with a liveness property added to both texts; Dijkstra's self-stabilising
token ring (EWD426) is written here. Both tools decide the same property from scratch: fito
as the whole `python -m fito check` command (start-up, parsing, compiling, the product
search; byte-compiled and run once before timing, bench/models/harness.py); SPIN as
`spin -a` + `gcc -O2 -DNOREDUCE` + `./pan -a` (with `-f` where the property assumes weak
fairness). Time is wall time to the verdict (gcc included for SPIN), memory each process's
own peak resident set. The run checks that the verdicts agree and prints the ratios
fito/SPIN; `--jobs 2` is run too and must give the same verdicts (the ltl engine runs in one
process and says so).

The models and properties:
- token ring: Dijkstra's self-stabilising K-state ring (EWD426; written from the TLA+
  Examples version, a setup process picks every start state): eventually always exactly one
  machine is privileged; no fairness.
- leader election (Dolev, Klawe and Rodeh; bench/models/leader): eventually one leader;
  no fairness.
- Peterson's filter lock for N processes (bench/models/peterson): process 0, once trying,
  eventually leaves the critical section (starvation freedom); weak fairness.
- alternating bit protocol over lossy channels (bench/models/abp): data are delivered again
  and again; weak fairness; fails in both, since the channel may lose every message.

Usage: python bench/liveness.py [--quick] [--models NAME ...] [--timeout S]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "models"))
import harness  # noqa: E402

OUT = ROOT / "bench" / "out" / "liveness"


# ---------------------------------------------------------------- the token ring (EWD426)
def _privileged(i: int, n: int) -> str:
    return f"x[0] == x[{n - 1}]" if i == 0 else f"x[{i}] != x[{i - 1}]"


def _unique(n: int, fito: bool) -> str:
    """Exactly one machine is privileged (as a Boolean formula: SPIN's ltl parser reads a
    conditional expression's `->` as an implication)."""
    neg, conj, disj = ("not ", " and ", " or ") if fito else ("!", " && ", " || ")
    terms = [
        "("
        + conj.join(
            f"({_privileged(j, n)})" if j == i else f"{neg}({_privileged(j, n)})" for j in range(n)
        )
        + ")"
        for i in range(n)
    ]
    return "(" + disj.join(terms) + ")"


def token_ring(n: int, m: int) -> tuple[str, str, str, str]:
    """(fito, Promela, fito property, SPIN property): a setup process picks every machine's
    value in turn (every start state), then the machines of Dijkstra's K-state ring move."""
    unique_f, unique_p = _unique(n, True), _unique(n, False)
    machines_f = [
        f"process M0 = started and x[0] == x[{n - 1}] & move.0 {{x[0] := (x[0] + 1) % M}} -> M0"
    ] + [
        f"process M{i} = started and x[{i}] != x[{i - 1}] & move.{i} {{x[{i}] := x[{i - 1}]}}"
        f" -> M{i}"
        for i in range(1, n)
    ]
    fito = f"""-- Dijkstra's self-stabilising K-state token ring (EWD426), N = {n}, K = M = {m}
const N = {n}
const M = {m}
type Id = 0..N-1
type Val = 0..M-1
channel pick: Id.Val
channel move: Id
domain x[i: Id]: Val = 0 durable
domain k: 0..N = 0 durable
domain started: Bool = false durable
process Setup =
  k < N & ([] v: Val @ pick.k.v {{x[k] := v, k := k + 1, started := k == N - 1}} -> Setup)
{chr(10).join(machines_f)}
system Setup ||| {" ||| ".join(f"M{i}" for i in range(n))}
"""
    setup_opts = "\n".join(
        f"  :: d_step {{ k < N -> x[k] = {v}; started = (k == N - 1); k++ }}" for v in range(m)
    )
    machines_p = [
        f"active proctype M0() {{ do :: d_step {{ started && x[0] == x[{n - 1}] -> "
        f"x[0] = (x[0] + 1) % M }} od }}"
    ] + [
        f"active proctype M{i}() {{ do :: d_step {{ started && x[{i}] != x[{i - 1}] -> "
        f"x[{i}] = x[{i - 1}] }} od }}"
        for i in range(1, n)
    ]
    pml = f"""#define N {n}
#define M {m}
byte x[N];
byte k;
bool started;
active proctype Setup() {{
  do
{setup_opts}
  od
}}
{chr(10).join(machines_p)}
"""
    return fito, pml, f"<> [] (started and {unique_f})", f"<> [] (started && {unique_p})"


# ---------------------------------------------------------------- models of bench/models
def _without_asserts(text: str) -> str:
    return "\n".join(x for x in text.splitlines() if not x.startswith("assert")) + "\n"


def _without_pml_asserts(text: str) -> str:
    return re.sub(r";?\s*assert\([^;]*?\)\s*", " ", text)


def from_generator(name: str, params: dict[str, int], fito_ltl: str, spin_ltl: str):  # type: ignore[no-untyped-def]
    model = harness.load(name)
    return (
        _without_asserts(model.fito("", **params)),
        model.promela("", **params),
        fito_ltl,
        spin_ltl,
    )


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    fair: bool
    quick: dict[str, int]
    full: dict[str, int]

    def texts(self, params: dict[str, int]) -> tuple[str, str, str, str]:
        if self.name == "tokenring":
            return token_ring(params["N"], params["M"])
        if self.name == "leader":
            return from_generator("leader", params, "<> (leaders == 1)", "<> (leaders == 1)")
        if self.name == "peterson":
            return from_generator(
                "peterson",
                params,
                "[] (level[0] > 0 => <> level[0] == 0)",
                "[] ((level[0] > 0) -> <> (level[0] == 0))",
            )
        return from_generator("abp", params, "[] <> (expect == 0)", "[] <> (expect == 0)")


CASES = (
    Case("tokenring", False, {"N": 4, "M": 4}, {"N": 7, "M": 7}),
    Case("leader", False, {"N": 3, "L": 3}, {"N": 7, "L": 3}),
    Case("peterson", True, {"N": 2}, {"N": 5}),
    Case("abp", True, {"C": 2, "D": 2}, {"C": 4, "D": 3}),
)


@dataclass(frozen=True, slots=True)
class Spin:
    seconds: float
    cpu: float
    mb: float
    holds: bool
    states: int


def run_spin(pml: Path, fair: bool, timeout: float) -> Spin:
    d = pml.parent
    gen = harness.measure(["spin", "-a", pml.name], d)
    cc = harness.measure(["gcc", "-O2", "-DNOREDUCE", "-DMEMLIM=16000", "-o", "pan", "pan.c"], d)
    if gen.status or cc.status:
        raise RuntimeError(f"SPIN could not build {pml}:\n{gen.out}\n{cc.out}")
    depth = 100_000
    while True:
        pan = harness.measure(["./pan", "-a", f"-m{depth}", *(["-f"] if fair else [])], d, timeout)
        if "max search depth too small" not in pan.out:
            break
        depth *= 10  # a deeper stack, again (as bench/models/harness.py does)
    m = re.search(r"errors: (\d+)", pan.out)
    s = re.search(r"(\d+) states, stored", pan.out)
    if m is None or s is None:
        raise RuntimeError(f"pan said:\n{pan.out}")
    return Spin(
        gen.seconds + cc.seconds + pan.seconds,
        gen.cpu + cc.cpu + pan.cpu,
        max(gen.mb, cc.mb, pan.mb),
        m.group(1) == "0",
        int(s.group(1)),
    )


def run_fito(
    path: Path, timeout: float, jobs: int | None = None
) -> tuple[float, float, float, str, int, str]:
    harness.prepare_fito()
    cmd = [
        sys.executable,
        "-m",
        "fito",
        "check",
        "--format",
        "json",
        "--no-progress",
        "--timeout",
        str(timeout),
        str(path),
    ]
    if jobs:
        cmd[4:4] = ["--jobs", str(jobs)]
    run = harness.measure(cmd, ROOT, timeout + 60)
    report = json.loads(run.out[run.out.index("{") :])
    (a,) = report["files"][0]["assertions"]
    notes = "; ".join(a.get("notes", []))
    return run.seconds, run.cpu, run.mb, a["verdict"], a["states"], notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the small sizes")
    ap.add_argument("--models", nargs="*", default=[c.name for c in CASES])
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument(
        "--set", nargs="*", default=[], metavar="NAME:P=V", help="a size, e.g. tokenring:N=7"
    )
    args = ap.parse_args(argv)
    sizes: dict[str, dict[str, int]] = {}
    for item in args.set:
        name, _, assign = item.partition(":")
        key, _, value = assign.partition("=")
        sizes.setdefault(name, {})[key] = int(value)
    print(harness.prepare_fito())
    rows = []
    ok = True
    for case in CASES:
        if case.name not in args.models:
            continue
        params = {**(case.quick if args.quick else case.full), **sizes.get(case.name, {})}
        fito_text, pml_text, fito_ltl, spin_ltl = case.texts(params)
        d = OUT / case.name
        d.mkdir(parents=True, exist_ok=True)
        fair = " fair weak" if case.fair else ""
        (d / "model.fito").write_text(fito_text + f"assert ltl {fito_ltl}{fair}\n")
        (d / "model.pml").write_text(_without_pml_asserts(pml_text) + f"ltl p {{ {spin_ltl} }}\n")
        spin = run_spin(d / "model.pml", case.fair, args.timeout)
        f_sec, f_cpu, f_mb, f_verdict, f_states, notes = run_fito(d / "model.fito", args.timeout)
        j_verdict = run_fito(d / "model.fito", args.timeout, jobs=2)[3]
        s_verdict = "holds" if spin.holds else "fails"
        agree = f_verdict == s_verdict == j_verdict
        ok &= agree
        label = f"{case.name} " + ", ".join(f"{k}={v}" for k, v in params.items())
        rows.append(
            (
                label,
                fair.strip() or "none",
                f_verdict,
                s_verdict,
                j_verdict,
                f_states,
                spin.states,
                f_sec,
                spin.seconds,
                f_mb,
                spin.mb,
                agree,
                f_cpu,
                spin.cpu,
            )
        )
        print(
            f"{label}: fito {f_verdict} ({f_states:,} product states, {f_sec:.2f} s, "
            f"{f_mb:.0f} MB), SPIN {s_verdict} ({spin.states:,} states, {spin.seconds:.2f} s, "
            f"{spin.mb:.0f} MB); --jobs 2: {j_verdict}; {notes}",
            flush=True,
        )
    print()
    print(
        "| model | fairness | fito | SPIN | --jobs 2 | fito states | SPIN states | fito s | SPIN s "
        "(gcc incl.) | time ratio | fito CPU s | SPIN CPU s | CPU ratio | fito MB | SPIN MB | "
        "memory ratio |"
    )
    print("| --- " * 16 + "|")
    for r in rows:
        print(
            f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:,} | {r[6]:,} | {r[7]:.2f} | "
            f"{r[8]:.2f} | {r[7] / r[8]:.2f}x | {r[12]:.2f} | {r[13]:.2f} | "
            f"{r[12] / r[13]:.2f}x | {r[9]:.0f} | {r[10]:.0f} | {r[9] / r[10]:.2f}x |"
        )
    print("\nverdicts agree" if ok else "\nVERDICTS DIFFER")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
