"""Specs with symmetric types, for the symmetry reduction's tests and bench.

`two_phase_commit(K, E)` is the oracles' 2pc checkpoint family (../shared/oracles/README.md:
one trainer epoch g, K persistence domains p[i], a commit marker c, a crash that stops the
system), written in fito from that description, with the domains a symmetric type.
`orbits_2pc(K, E)` counts its states up to permuting the domains, by a formula derived
here (not by the checker). `SymGen` draws random specs whose symmetric type is legal.
"""

from __future__ import annotations

import random
from math import comb


def two_phase_commit(K: int, E: int, symmetric: bool = True) -> str:
    """The 2pc family at K domains and E epochs (after the crash: STOP)."""
    members = ", ".join(f"d{i}" for i in range(K))
    kw = "symmetric type" if symmetric else "type"
    return f"""-- the 2pc family of ../shared/oracles (K = {K}, E = {E})
const E = {E}
{kw} Dom = {{{members}}}
type Epoch = 0..E
channel advance, commit
channel persist: Dom
domain g: Epoch = 0 durable
domain p[i: Dom]: Epoch = 0 durable
domain c: Epoch = 0 durable
domain crashed: Bool = false durable
process Sys =
    g < E & advance {{g := g + 1}} -> Sys
 [] ([] i: Dom @ p[i] < g & persist.i {{p[i] := g}} -> Sys)
 [] (c < g and (forall i: Dom @ p[i] == g)) & commit {{c := g}} -> Sys
 [] crash {{crashed := true}} -> STOP
system Sys
assert always crashed => (forall i: Dom @ c <= p[i])
"""


def states_2pc(K: int, E: int) -> int:
    """The oracle's count of reachable states: 2 * sum_g sum_{m=1..g+1} m^K."""
    return 2 * sum(m**K for g in range(E + 1) for m in range(1, g + 2))


def orbits_2pc(K: int, E: int) -> int:
    """States up to permutations of the domains. A state is (g, c, crashed) and a vector p
    with every p[i] in c..g (m = g - c + 1 values); its orbit is the multiset of the p[i],
    of which there are C(m + K - 1, K)."""
    return 2 * sum(comb(m + K - 1, K) for g in range(E + 1) for m in range(1, g + 2))


class SymGen:
    """Random specs over `symmetric type D` (an enumeration or a range) whose every use of
    D is one the proof accepts: cells indexed by D, choices `[] d: D @` whose branches start
    with an event, quantifiers, == and != between members; plus cells of other types,
    crashes and interleaved processes. With `taint`, one asymmetric use is added (the proof
    must refuse it, and the search then runs unreduced)."""

    def __init__(self, seed: int, taint: bool = False) -> None:
        self.r = random.Random(seed)
        self.taint = taint
        self.n = self.r.choice([2, 3, 3, 4])

    def member_expr(self, d: str) -> str:
        r = self.r
        return r.choice(
            [
                f"p[{d}]",
                f"(if q[{d}][0] then p[{d}] else x)",
                f"min(p[{d}], x)",
                f"(p[{d}] + 1)",
                "x",
            ]
        )

    def guard(self, d: str) -> str:
        r = self.r
        return r.choice(
            [
                f"p[{d}] < x",
                f"p[{d}] <= 1",
                f"not q[{d}][1]",
                f"(forall e: D @ p[e] <= p[{d}] + 1)",
                f"(exists e: D @ e != {d} and p[e] == p[{d}])",
                f"(forall e: D @ e == {d} or not q[e][0])",
                "f",
                "x < 2",
                "true",
            ]
        )

    def assign(self, d: str) -> str:
        r = self.r
        return r.choice(
            [
                f"p[{d}] := {self.member_expr(d)}",
                f"q[{d}][{r.randrange(2)}] := not q[{d}][{r.randrange(2)}]",
                f"x := p[{d}]",
                f"p[{d}] := 0, x := min(2, x + 1)",
                "forall e: D @ q[e][1] := f",
                "f := not f",
            ]
        )

    def branch(self, name: str) -> str:
        r = self.r
        if r.random() < 0.65:
            ch = r.choice(["a", "b"])
            return f"([] d: D @ {self.guard('d')} & {ch}.d {{{self.assign('d')}}} -> {name})"
        guard = r.choice(["x < 2", "f", "not f", "(exists e: D @ p[e] == x)", "true"])
        assign = r.choice(["x := (x + 1) % 3", "f := not f", "forall e: D @ p[e] := 0", "y := x"])
        return f"{guard} & t {{{assign}}} -> {name}"

    def spec(self) -> str:
        r = self.r
        n = self.n
        if r.random() < 0.5:
            dom = f"symmetric type D = {{{', '.join(f'm{i}' for i in range(n))}}}"
        else:
            dom = f"symmetric type D = 0..{n - 1}"
        lines = [
            dom,
            "channel a, b: D",
            "channel t",
            f"domain p[i: D]: 0..2 = {r.randrange(2)} {r.choice(['durable', 'volatile'])}",
            f"domain q[i: D][j: 0..1]: Bool = (j == {r.randrange(2)}) durable",
            f"domain x: 0..2 = {r.randrange(3)} durable",
            "domain y: 0..2 = 0 volatile",
            f"domain f: Bool = {r.choice(['true', 'false'])} volatile",
        ]
        procs = r.choice([1, 2, 2])
        for k in range(procs):
            branches = [self.branch(f"P{k}") for _ in range(r.choice([1, 2, 3]))]
            lines.append(f"process P{k} = " + " [] ".join(branches))
        body = " ||| ".join(f"P{k}" for k in range(procs))
        if r.random() < 0.5:
            body = f"({body}) /\\ (crash -> Sys)"
        lines.append(f"process Sys = {body}")
        lines.append("system Sys")
        if self.taint:
            first = "m0" if "{" in dom else "0"
            lines.append(f"process Odd = [] d: D @ a.d {{p[{first}] := 1}} -> Odd")
            lines.append("process Sys2 = Sys ||| Odd")
            lines[-3] = lines[-3]  # the tainted process joins the system below
            lines[lines.index("system Sys")] = "system Sys2"
        lines.append("assert :[deadlock free]")
        lines.append(
            "assert always "
            + r.choice(
                [
                    "forall d: D @ p[d] <= 1 or q[d][0]",
                    "not (forall d: D @ p[d] == 2)",
                    "x < 2 or (exists d: D @ p[d] == 0)",
                    "forall d: D @ forall e: D @ d == e or p[d] != p[e] or p[d] == 0",
                ]
            )
        )
        lines.append(
            "assert reaches "
            + r.choice(
                [
                    "forall d: D @ p[d] == 2",
                    "exists d: D @ exists e: D @ d != e and p[d] == 1 and p[e] == 2",
                    "x == 2 and (exists d: D @ q[d][1])",
                ]
            )
        )
        return "\n".join(lines) + "\n"
