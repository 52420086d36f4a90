"""The oracles' checkpoint family (tests/oracles/README.md) written in the fito language.

`spec(K, E, variant)` gives a .fito text whose reachable states correspond one to one with
the reference model's: the control term is the running network or STOP after the crash,
which stands for the reference's `crashed` flag (so the state count is the same number).
"""

from __future__ import annotations


def spec(k: int, e: int, variant: str) -> str:
    """The model for K domains, epochs 0..E, variant naive or 2pc."""
    twopc = variant == "2pc"
    lines = [
        f"-- oracle checkpoint family: K = {k}, E = {e}, variant {variant}",
        f"const K = {k}",
        f"const E = {e}",
        "type Epoch = 0..E",
        "type Dom = 0..K-1",
        "channel advance, fail",
        "channel persist: Dom",
        "domain g: Epoch = 0 durable",
        "domain p[i: Dom]: Epoch = 0 durable",
        "domain crashed: Bool = false durable",
        "process Trainer = g < E & advance { g := g + 1 } -> Trainer",
        "process Persist(i: Dom) = p[i] < g & persist.i { p[i] := g } -> Persist(i)",
    ]
    if twopc:
        lines += [
            "channel commit",
            "domain c: Epoch = 0 durable",
            "process Committer = (c < g and (forall i: Dom @ p[i] == g)) & commit { c := g }"
            " -> Committer",
            "process Work = Trainer ||| Committer ||| (||| i: Dom @ Persist(i))",
            "process Node = Work /\\ (fail { crashed := true } -> STOP)",
            "system Node",
            "assert always (crashed => (forall i: Dom @ c <= p[i]))",
        ]
    else:
        lines += [
            "process Work = Trainer ||| (||| i: Dom @ Persist(i))",
            "process Node = Work /\\ (fail { crashed := true } -> STOP)",
            "system Node",
            "assert always (crashed => (forall i: Dom @ p[i] == p[0]))",
        ]
    lines.append("assert always true")
    return "\n".join(lines) + "\n"


def closed_form(k: int, e: int, variant: str) -> int:
    """The reference's closed form for the number of reachable states."""
    if variant == "2pc":
        return 2 * sum(sum(m**k for m in range(1, g + 2)) for g in range(e + 1))
    return 2 * sum((g + 1) ** k for g in range(e + 1))
