"""Paper A, claims 4 and 5: fleet updates need common knowledge; bilateral commit converges.

Claim 4 (`paperA.coordinated-attack.r<r>`, r = 1..8): `fito.models.epochs.coordinated_attack`
enumerates every decision rule of both nodes over the views of a lossy message chain. The
kernel re-enumerates the same rule space from a formula built here independently (the views
written in closed form from the chain's shape, not from the engine's simulation): no rule
meets agreement, validity and integrity together; each pair is met by a rule the certificate
names; for the silent pattern, the number meeting each pair is recounted too.

Claim 5 (`paperA.bilateral.k<k>`, k = 2..5): `fito.models.epochs.bilateral` walks the state graph
fito's checker builds for the reflect-then-commit protocol (one epoch, a crash possible in
every state) and counts its interleavings, crash points and mixed recoveries, for the
bilateral recovery and the naive latest-per-domain one. The kernel recounts each number
from the protocol's phase vectors (multinomials for paths, the recovery rules applied to
every vector), so the engine's graph and the combinatorics must agree.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from fito.proof import (
    Claim,
    Outcome,
    counterexample,
    enumeration,
    proved,
    recurrence,
    refuted,
    register,
    unknown,
    witness,
)

CHAINS = range(1, 9)
DOMAINS = range(2, 6)
CHEAP_BOX = 1 << 13  # the kernel recounts every requirement pair only for boxes this small


# ---------------------------------------------------------------- claim 4: coordinated attack
def chain_runs(r: int, pattern: str) -> list[tuple[int, int, str, str]]:
    """(order, messages delivered j, A's view, B's view) of each run, in closed form.

    The first loss ends the chain, so a run is an order and a prefix m_1..m_j. A has received
    the even messages up to j, B the odd ones; B knows the order once it has any message.
    """
    out = []
    for order in (0, 1):
        for j in range(r + 1):
            if pattern == "silent" and order == 0 and j > 0:
                break  # no order: nothing is sent
            b = "b_none" if j == 0 else f"b{order}_{(j + 1) // 2}"
            out.append((order, j, f"a{order}_{j // 2}", b))
    return out


def requirement_formulas(r: int, pattern: str) -> tuple[list[str], dict[str, Any]]:
    """The rule variables (one per view, 0 stay / 1 switch) and the three requirements."""
    found = chain_runs(r, pattern)
    names = sorted({x for _, _, a, b in found for x in (a, b)})
    complete = next((a, b) for order, j, a, b in found if order == 1 and j == r)
    quiet = sorted({x for order, _, a, b in found if order == 0 for x in (a, b)})
    formulas = {
        "agreement": ["and", *(["=", a, b] for _, _, a, b in found)],
        "validity": ["and", *(["=", x, 1] for x in complete)],
        "integrity": ["and", *(["=", x, 0] for x in quiet)],
    }
    return names, formulas


def _conjunction(formulas: dict[str, Any], names: tuple[str, ...]) -> Any:
    # integrity first: it fails at once on half the rules, so the kernel's walk stays short
    order = ("integrity", "validity", "agreement")
    return ["and", *(formulas[n] for n in order if n in names)]


def view_name(view: Any) -> str:
    """The formula's variable for an engine view: node, order, number of messages received."""
    if view.node == "B" and not view.received:
        return "b_none"
    return f"{view.node.lower()}{view.ordered}_{len(view.received)}"


def _assignment(rule: dict[Any, int]) -> dict[str, int]:
    return {view_name(v): d for v, d in rule.items()}


def engine_formulas(c: Any) -> dict[str, Any]:
    """The three requirements over the runs the engine found (not the chain's closed form):
    what a rule the engine reports must meet, so that its refutation is about its model."""
    complete = tuple(range(1, c.r + 1))
    agree, valid, quiet = [], [], []
    for run in c.runs:
        a, b = view_name(run.view_a), view_name(run.view_b)
        agree.append(["=", a, b])
        if run.ordered == 1 and run.delivered == complete:
            valid += [["=", a, 1], ["=", b, 1]]
        if run.ordered == 0:
            quiet += [["=", a, 0], ["=", b, 0]]
    return {
        "agreement": ["and", *agree],
        "validity": ["and", *valid] if valid else ["=", 0, 1],
        "integrity": ["and", *quiet] if quiet else ["=", 0, 0],
    }


def _pattern_outcome(c: Any) -> list[Any] | Outcome:
    """The obligations for one pattern's census, or the outcome that stops the claim."""
    from fito.models.epochs import coordinated_attack as ca

    r, pattern, every = c.r, c.pattern, ca.REQUIREMENTS
    names, formulas = requirement_formulas(r, pattern)
    found = c.witness(*every)
    if found is not None:  # the requirements as the engine's runs state them, and its rule
        return refuted(
            counterexample(
                ["not", _conjunction(engine_formulas(c), every)],
                _assignment(found),
                note=f"{pattern}, r = {r}: the engine's rule meets all three on its runs",
            ),
            reason=f"{pattern}: a rule meets every requirement",
        )
    engine_names = sorted(view_name(v) for v in c.views)
    if engine_names != names:
        return unknown(
            f"{pattern}, r = {r}: the engine's views {engine_names} are not the chain's {names}"
        )
    if c.counts != ca.predicted(r, pattern):
        return unknown(f"{pattern}, r = {r}: the engine's counts differ from the closed forms")
    box = [(n, 0, 1) for n in names]
    obligations = [
        enumeration(
            box,
            "count",
            c.count(*every),
            where=_conjunction(formulas, every),
            note=f"{pattern}: {c.rules} rules examined, none meets all three",
        )
    ]
    for dropped in every:
        kept = tuple(n for n in every if n != dropped)
        obligations.append(
            witness(
                _conjunction(formulas, kept),
                _assignment(c.witness(*kept)),
                note=f"{pattern}: without {dropped}, a rule exists",
            )
        )
        if c.rules <= CHEAP_BOX:
            obligations.append(
                enumeration(
                    box,
                    "count",
                    c.count(*kept),
                    where=_conjunction(formulas, kept),
                    note=f"{pattern}: rules meeting {' and '.join(kept)}",
                )
            )
    return obligations


def coordinated_attack(r: int) -> Outcome:
    """Both patterns of the chain of length r: the engine's census, recounted by the kernel."""
    from fito.models.epochs import coordinated_attack as ca

    obligations: list[Any] = []
    for pattern in ca.PATTERNS:
        part = _pattern_outcome(ca.census(r, pattern))
        if isinstance(part, Outcome):
            return part
        obligations += part
    return proved(*obligations)


def _attack_statement(r: int) -> str:
    from fito.models.epochs import coordinated_attack as ca

    silent, chatty = (ca.predicted(r, p)[frozenset()] for p in ca.PATTERNS)
    return (
        f"Two nodes, A told whether an update is ordered, exchange a chain of {r} messages "
        f"(odd ones A -> B, each sent on receipt of the previous) over a link that may lose "
        f"any of them. Silent pattern (nothing is sent without an order): of all "
        f"{silent} pairs of deterministic decision rules over the views that occur, none "
        f"makes the nodes agree in every run, switch when the update is ordered and every "
        f"message arrives, and stay when no update is ordered; dropping any one of the three "
        f"requirements leaves rules that meet the other two. The same holds for the chatty "
        f"pattern (the chain always runs, every message carrying the order bit), {chatty} "
        f"rule pairs. Each examined rule stands for every rule over arbitrary receipt sets "
        f"that agrees with it on the views that occur (docs/coordination.md)."
    )


for _r in CHAINS:
    register(
        Claim(
            f"paperA.coordinated-attack.r{_r}",
            f"no atomic switch over a lossy chain of {_r}",
            _attack_statement(_r),
            f"fito.models.epochs.coordinated_attack, r = {_r}, patterns silent and chatty",
            "enumeration",
            functools.partial(coordinated_attack, _r),
            timeout=120,
        )
    )


# ---------------------------------------------------------------- claim 5: bilateral commit
def _factorial(n: Any, top: int) -> Any:
    """n! for an integer 0 <= n <= top, as a kernel expression: prod_j (j if j <= n else 1)."""
    return ["*", 1, *(["ite", ["<=", j, n], j, 1] for j in range(2, top + 1))]


def phase_formulas(k: int) -> dict[str, Any]:
    """The phase-vector model: box, paths through a point, and each recovery rule's mixing.

    Before the commit, domain d is in phase p_d: 0 nothing written, 1 written (TENTATIVE),
    2 reflected (REFLECTING); c = 1 is the committed state (every p_d = 2). Events so far:
    i = sum p_d; paths to the point: i! / prod p_d!; on to the commit: (2k - i)! / prod
    (2 - p_d)!. Recovery in domain d: newest copy w_d = min(p_d, 1) (or 1 once committed);
    bilateral takes w_d if the commit record exists (c >= w_d), else w_d - 1; latest takes w_d.
    """
    ps = [f"p{d}" for d in range(k)]
    box = [(p, 0, 2) for p in ps] + [("c", 0, 1)]
    valid = ["implies", ["=", "c", 1], ["and", *(["=", p, 2] for p in ps)]]
    done = ["+", *ps]
    to = ["/", _factorial(done, 2 * k), ["*", 1, *(["ite", ["=", p, 2], 2, 1] for p in ps)]]
    frm = [
        "/",
        _factorial(["-", 2 * k, done], 2 * k),
        ["*", 1, *(["ite", ["=", p, 0], 2, 1] for p in ps)],
    ]
    newest = [["min", p, 1] for p in ps]
    takes = {
        "bilateral": [["ite", [">=", "c", w], w, ["-", w, 1]] for w in newest],
        "latest": newest,
    }
    mixed = {mode: ["or", *(["!=", t, ts[0]] for t in ts[1:])] for mode, ts in takes.items()}
    return {
        "box": box,
        "valid": valid,
        "paths": ["*", to, frm],
        "to": to,
        "mixed": mixed,
        "takes": takes,
        "newest": newest,
    }


def _mode_obligations(k: int, counts: Any, f: dict[str, Any]) -> list[Any]:
    box, valid, mode = f["box"], f["valid"], counts.mode
    where_mixed = ["and", valid, f["mixed"][mode]]
    return [
        enumeration(
            box,
            "sum",
            counts.interleavings,
            expr=f["to"],
            where=["and", valid, ["=", "c", 1]],
            note=f"{mode}: crash-free interleavings, (2k)!/2^k",
        ),
        enumeration(
            box, "count", counts.crash_points, where=valid, note=f"{mode}: crash points, 3^k + 1"
        ),
        enumeration(
            box,
            "sum",
            counts.crash_runs,
            expr=f["paths"],
            where=valid,
            note=f"{mode}: (interleaving, crash point) pairs",
        ),
        enumeration(
            box,
            "count",
            counts.mixed_points,
            where=where_mixed,
            note=f"{mode}: crash points whose recovery is mixed",
        ),
        enumeration(
            box,
            "sum",
            counts.mixed_runs,
            expr=f["paths"],
            where=where_mixed,
            note=f"{mode}: crash runs whose recovery is mixed",
        ),
    ]


def bilateral(k: int) -> Outcome:
    """The engine's counts for both recovery rules, recounted by the kernel from phase vectors."""
    from fito.models.epochs import bilateral_count as bc

    f = phase_formulas(k)
    obligations: list[Any] = []
    for mode in bc.MODES:
        counts, closed = bc.count(k, mode), bc.predicted(k, mode)
        if mode == "bilateral" and counts.mixed_points:
            return unknown(
                f"the engine finds {counts.mixed_points} mixed recoveries of the "
                f"bilateral protocol; the kernel would reject the certificate"
            )
        if replace(counts, states=None) != closed:  # the description states the closed forms
            return unknown(
                f"{mode}: the engine's counts {counts} are not the closed forms {closed}"
            )
        obligations += _mode_obligations(k, counts, f)
    return proved(*obligations)


def _bilateral_statement(k: int) -> str:
    from fito.models.epochs import bilateral_count as bc

    b, n = bc.predicted(k, "bilateral"), bc.predicted(k, "latest")
    return (
        f"The reflect-then-commit protocol with {k} persistence domains writing one epoch e "
        f"(each domain writes e tentatively keeping e - 1, then reflects it; the commit record "
        f"follows every reflection), a crash possible in every state: fito's state graph of "
        f"fito.models.epochs.bilateral.spec({k}, epochs=1) has {b.interleavings} crash-free "
        f"interleavings, {b.crash_points} crash points and {b.crash_runs} (interleaving, "
        f"crash point) pairs. Recovery taking e everywhere if the commit record exists, else "
        f"e - 1 everywhere, is mixed at none of them; the naive recovery taking each domain's "
        f"newest copy is mixed at {n.mixed_points} crash points, in {n.mixed_runs} of the "
        f"pairs. These are the closed forms of docs/bilateral.md; the obligations hold the "
        f"numbers the engine counted on the state graph, and the kernel recounts each one "
        f"from the phase vectors of the protocol."
    )


for _k in DOMAINS:
    register(
        Claim(
            f"paperA.bilateral.k{_k}",
            f"bilateral commit of {_k} domains: no mixed recovery",
            _bilateral_statement(_k),
            f"fito.models.epochs.bilateral.spec({_k}, epochs=1), Node(bilateral|latest, false)",
            "model-checking+enumeration",
            functools.partial(bilateral, _k),
            timeout=120,
        )
    )


# ---------------------------------------------------------------- claim 5 for every k
PAPER_LATEST_MIXED = ["-", ["-", ["^", 3, "k"], ["^", 2, "k"]], 1]  # 3^k - 2^k - 1


def _count(box: list, where: Any) -> int:
    """The claim's own count of a one-domain box (the kernel recounts it)."""
    from fito.proof.kernel.expr import compile_expr, parse  # lazy-import: a small evaluator

    run = compile_expr(parse(where))
    names = [n for n, _, _ in box]
    points = [dict(zip(names, v)) for v in _box_points(box)]
    return sum(bool(run(p)) for p in points)


def _box_points(box: list) -> list[tuple[int, ...]]:
    import itertools

    return list(itertools.product(*(range(lo, hi + 1) for _, lo, hi in box)))


def bilateral_every_k() -> Outcome:
    """For every number k of domains, from the phase-vector model of the protocol (the
    formulas the kernel recounts the engine's graphs with, paperA.bilateral.k2..k5)."""
    one = phase_formulas(1)
    box, valid = one["box"], one["valid"]
    (takes,) = one["takes"]["bilateral"]
    (newest,) = one["newest"]
    phases = [b for b in box if b[0] != "c"]
    any_ext = _count(phases, ["=", 0, 0])
    from_zero = _count(phases, ["!=", newest, 0])
    from_one = _count(phases, ["!=", newest, 1])
    step = ["+", ["*", "prev", any_ext], from_zero, ["*", ["^", 2, "k"], from_one]]
    return proved(
        enumeration(
            box,
            "all",
            True,
            expr=["=", takes, "c"],
            where=valid,
            note="bilateral: each domain recovers exactly the commit bit c, whatever its "
            "phase, so for every k the k domains recover (c, ..., c): never mixed",
        ),
        enumeration(phases, "count", any_ext, note="a domain's phases: any extension"),
        enumeration(
            phases,
            "count",
            from_zero,
            where=["!=", newest, 0],
            note="latest: phases whose newest copy breaks an all-old prefix",
        ),
        enumeration(
            phases,
            "count",
            from_one,
            where=["!=", newest, 1],
            note="latest: phases whose newest copy breaks an all-new prefix",
        ),
        recurrence(
            "k",
            1,
            initial=0,
            step=step,
            closed=PAPER_LATEST_MIXED,
            note="latest: M(1) = 0; a mixed prefix stays mixed (any phase), the all-old "
            "prefix (1 vector) and the 2^k all-new prefixes are broken by the counts above",
        ),
    )


register(
    Claim(
        "paperA.bilateral.every-k",
        "bilateral commit of every k domains: no mixed recovery",
        "For every number k >= 1 of persistence domains, in the phase-vector model of the "
        "reflect-then-commit protocol (domain d in phase 0 nothing written, 1 tentative, 2 "
        "reflected; the commit bit c = 1 only when every domain has reflected): each "
        "domain's bilateral recovery is the commit bit c whatever its phase (the kernel "
        "checks all 5 valid (phase, c) pairs), so the k domains always recover the same "
        "epoch; the naive latest-per-domain recovery is mixed at exactly 3^k - 2^k - 1 of the "
        "3^k + 1 crash points (induction on k, the extension counts recounted by the kernel). "
        "That fito's state graph of the generated spec is this phase model is checked for k "
        "= 2..5 (paperA.bilateral.k2..k5); for larger k it is the model's argument.",
        "the phase-vector model of the protocol, every k >= 1",
        "enumeration+induction",
        bilateral_every_k,
    )
)


# ---------------------------------------------------------------- the FITO mistake, typed
def _pipeline_reference() -> dict[str, Any]:
    """The typing of the pipeline family (fito.models.epochs.pipelines) written from the
    rules of the calculus (LANGUAGE.md, docs/types.md), independently of the checker: the
    diagnostics each pipeline must get, as formulas in its coordinates x, y, c, s, r."""
    conv_needed = ["<=", "s", 1]  # resume, restore need a Conv; log takes either
    direct = ["=", "c", 0]  # v is x itself
    converged = ["=", "c", 1]  # v = converge(Trained, e1, x, y)
    return {
        # a Snap (x read by snapshot of one domain, with or without an epoch) as a Conv
        "FITO001": ["and", conv_needed, direct, ["<=", "x", 2]],
        # a product of snapshots of two domains as one atomic snapshot
        "FITO004": ["and", conv_needed, direct, ["=", "x", 3]],
        # a converge argument without an epoch: x unread with @ (0, the product 3) or y
        "FITO006": ["and", converged, ["or", ["=", "x", 0], ["=", "x", 3], ["=", "y", 0]]],
        # an argument at e2 converged at e1 with no fact that e2 = e1
        "FITO002": ["and", converged, ["=", "r", 0], ["or", ["=", "x", 2], ["=", "y", 2]]],
    }


def snap_vs_conv() -> Outcome:
    """The type checker's diagnostics on every pipeline of the family against the
    reference typing, code by code, recounted by the kernel."""
    from fito.models.epochs import pipelines as pl

    verdicts = pl.type_check()
    reference = _pipeline_reference()
    number = [
        "+",
        "x",
        ["*", 5, ["+", "y", ["*", 3, ["+", "c", ["*", 2, ["+", "s", ["*", 3, "r"]]]]]]],
    ]
    box = [list(b) for b in pl.BOX]
    others = {c for cs in verdicts.codes.values() for c in cs} - set(reference)
    if others:
        return unknown(
            f"the checker gives diagnostics the reference does not type: {sorted(others)}"
        )
    from fito.proof.kernel.expr import compile_expr, parse  # lazy-import: an evaluator

    names = [b[0] for b in pl.BOX]
    for diagnostic, where in reference.items():
        run = compile_expr(parse(where))
        typed = sorted(pl.code(p) for p in pl.family() if run(dict(zip(names, p))))
        if typed != verdicts.with_code(diagnostic):
            odd = sorted(set(typed) ^ set(verdicts.with_code(diagnostic)))
            return unknown(
                f"{diagnostic}: the checker and the reference typing disagree on pipelines "
                f"{odd[:8]} (fito.models.epochs.pipelines.source shows them)"
            )
    obligations = []
    for diagnostic, where in reference.items():
        found = verdicts.with_code(diagnostic)
        obligations.append(
            enumeration(
                box,
                "set",
                found,
                expr=number,
                where=where,
                note=f"the pipelines fito's type checker gives {diagnostic}: exactly the "
                "reference's",
            )
        )
    accepted = ["not", ["or", *reference.values()]]
    obligations.append(
        enumeration(
            box,
            "set",
            verdicts.accepted(),
            expr=number,
            where=accepted,
            note="the pipelines the type checker accepts: exactly those the reference types",
        )
    )
    return proved(*obligations)


register(
    Claim(
        "paperA.snap-vs-conv.pipelines",
        "the FITO mistake is a type error in fito's pipeline calculus",
        "For every pipeline of the family of fito.models.epochs.pipelines (180 pipelines: "
        "x read as snapshot(model) without an epoch, @ e1 or @ e2, as the product "
        "snapshot(model, optim), or as commit(Trained, e1, model); used directly or "
        "converged at e1 with y = snapshot(optim) without an epoch, @ e1 or @ e2; then "
        "resume, restore or log; with or without `require e2 == e1`), fito's type checker "
        "reports FITO001 (snap-as-conv) exactly when a Snap reaches resume or restore, "
        "FITO004 (product-as-atomic) exactly when the product does, FITO006 exactly when a "
        "converge argument has no epoch, FITO002 exactly when an argument at e2 is "
        "converged at e1 with no fact that e2 = e1, nothing else, and accepts exactly the "
        "other pipelines: the reference typing written from the calculus's rules, the sets "
        "recounted by the kernel.",
        "fito.models.epochs.pipelines.family(): 180 pipelines, fito.check_text",
        "type-checking+enumeration",
        snap_vs_conv,
        timeout=120,
    )
)
