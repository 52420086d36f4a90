"""The second pass: Z3 decides the requires (FITO005) and each converge's epochs (FITO002).

Facts are split into independent groups (facts that share no epoch variable); a question
is asked under the groups its epochs touch, which keeps questions small and lets equal
questions share one cached answer. If the facts are consistent, dropping the groups a
question does not touch changes no answer (their variables are disjoint and satisfiable).
In a large group a question is first asked under the facts that mention its epochs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fito.lang.printer.canonical import print_expr
from fito.types.context import Context, Fact, Obligation, Part
from fito.types.epochs import Formula, Truth
from fito.types.kinds import show
from fito.types.oracle import NEVER, POSSIBLE, PROVED, SAT, UNKNOWN, UNSAT, EpochOracle, Equality


@dataclass(frozen=True, slots=True)
class Answer:
    part: Part
    equality: Equality
    facts: tuple[Fact, ...]  # the requires the question was asked under


@dataclass(frozen=True, slots=True)
class Group:
    facts: tuple[Fact, ...]  # in source order
    key: tuple[Formula, ...]  # canonical: distinct formulas, sorted
    rank: str  # orders groups the same way whatever the source order of the requires


def decide(ctx: Context, oracle: EpochOracle) -> None:
    """Report contradictory facts, then every converge whose epochs are not proved equal."""
    groups, by_var = _groups(ctx.facts)
    consistent = True
    for g in groups:
        consistent &= _check_group(ctx, g, oracle)
    if not consistent:
        return  # false facts prove every equality: the converge checks would say nothing
    asker = _Asker(ctx, oracle, groups, by_var, _neighbours(groups))
    for ob in ctx.obligations:
        _report(ctx, ob, [asker.ask(ob, part) for part in ob.parts])


NEAR_LIMIT = 24  # facts: above this, a question is first asked under its neighbourhood


@dataclass(slots=True)
class _Asker:
    ctx: Context
    oracle: EpochOracle
    groups: list[Group]
    by_var: dict[str, int]
    near: dict[str, tuple[Fact, ...]]
    models: dict[tuple[int, ...], dict[str, int]] = field(default_factory=dict)
    rank: dict[str, int] = field(default_factory=dict)  # epoch -> declaration index

    def ask(self, ob: Obligation, part: Part) -> Answer:
        """Is the part's epoch the target epoch? Large fact groups are narrowed first.

        More facts prove more and allow less, so an equality proved from the facts that
        mention its epochs is proved, and one they rule out is ruled out (every model of all
        the facts then differs, so any such model is a counterexample). Otherwise all the
        facts of the groups it touches decide.
        """
        a, b = part.epoch.term, ob.target.term
        names = a.variables() | b.variables()
        ids = tuple(_groups_for(self.groups, self.by_var, names))
        if not self.rank:
            self.rank.update((n, i) for i, n in enumerate(self.ctx.epochs))
        if sum(len(self.groups[i].key) for i in ids) > NEAR_LIMIT:
            close = tuple(dict.fromkeys(f for n in sorted(names) for f in self.near.get(n, ())))
            formulas = [f.formula for f in close]
            answer = self.oracle.equality(formulas, a, b, self.rank, witness=False)
            if answer.status == PROVED:
                return Answer(part, answer, close)
            witness = self._model(ids, names) if answer.status == NEVER else None
            if witness is not None:
                return Answer(part, Equality(NEVER, witness), close)
        facts = tuple(f for i in ids for f in self.groups[i].key)
        every = tuple(f for i in ids for f in self.groups[i].facts)
        return Answer(part, self.oracle.equality(facts, a, b, self.rank), every)

    def _model(
        self, ids: tuple[int, ...], names: frozenset[str]
    ) -> tuple[tuple[str, int], ...] | None:
        """The names' values in a model of the groups (None if Z3 gives no model)."""
        if ids not in self.models:
            facts = tuple(f for i in ids for f in self.groups[i].key)
            every = sorted(set().union(*(f.variables() for f in facts)))
            values = self.oracle.model(facts, every)
            if values is None:
                return None
            self.models[ids] = dict(values)
        shown = sorted(names, key=lambda n: (self.rank.get(n, len(self.rank)), n))
        return tuple((n, self.models[ids].get(n, 0)) for n in shown)


# ---------------------------------------------------------------------------- fact groups
def _groups(facts: list[Fact]) -> tuple[list[Group], dict[str, int]]:
    parent: dict[str, str] = {}

    def find(v: str) -> str:
        while parent.setdefault(v, v) != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    useful = [f for f in facts if f.formula != Truth(True)]
    for f in useful:
        vs = sorted(f.formula.variables())
        for v in vs[1:]:
            parent[find(v)] = find(vs[0])
    buckets: dict[str, list[Fact]] = {}
    for i, f in enumerate(useful):
        names = f.formula.variables()
        root = find(min(names)) if names else f"#{i}"  # a variable-free fact stands alone
        buckets.setdefault(root, []).append(f)
    groups = []
    for fs in buckets.values():
        key = tuple(sorted(dict.fromkeys(x.formula for x in fs), key=repr))
        groups.append(Group(tuple(fs), key, repr(key)))
    by_var = {v: i for i, g in enumerate(groups) for f in g.facts for v in f.formula.variables()}
    return groups, by_var


def _neighbours(groups: list[Group]) -> dict[str, tuple[Fact, ...]]:
    """Epoch name -> the facts that mention it."""
    out: dict[str, list[Fact]] = {}
    for g in groups:
        for f in g.facts:
            for v in sorted(f.formula.variables()):
                out.setdefault(v, []).append(f)
    return {v: tuple(fs) for v, fs in out.items()}


def _groups_for(groups: list[Group], by_var: dict[str, int], names: frozenset[str]) -> list[int]:
    """The groups a question touches, in canonical order (so equal questions share a key)."""
    return sorted({by_var[v] for v in names if v in by_var}, key=lambda i: groups[i].rank)


def _check_group(ctx: Context, g: Group, oracle: EpochOracle) -> bool:
    answer = oracle.consistency(g.key)
    if answer.status == SAT:
        return True
    if answer.status == UNKNOWN:
        first = g.facts[0].stmt
        ctx.error(
            "FITO007",
            f"Z3 could not decide whether the requires of pipeline "
            f"'{ctx.pipeline.name}' are consistent: unknown ({answer.reason})",
            first.expr.span,
            notes=tuple(_fact_line(f) for f in g.facts),
            hint="simplify the requires or raise the solver limit (fito types --timeout)",
        )
        return True
    core = {g.key[i] for i in answer.core}
    involved = [f for f in g.facts if f.formula in core] or list(g.facts)
    last = max(involved, key=lambda f: f.stmt.span.start)
    if len(involved) == 1:
        message = f"this require can never hold: no epochs satisfy {print_expr(last.stmt.expr)}"
    else:
        lines = ", ".join(str(f.stmt.span.line) for f in involved)
        message = f"the requires at lines {lines} contradict each other: no epochs satisfy them all"
    ctx.error(
        "FITO005",
        message,
        last.stmt.expr.span,
        notes=(
            *(_fact_line(f) for f in involved),
            (
                "with contradictory facts every epoch equality would be provable, so the "
                f"converge checks of pipeline '{ctx.pipeline.name}' are skipped"
            ),
        ),
        hint="remove or correct one of these requires",
    )
    return False


def _fact_line(f: Fact) -> str:
    return f"line {f.stmt.span.line}: require {print_expr(f.stmt.expr)}"


# ---------------------------------------------------------------------------- converge reports
def _report(ctx: Context, ob: Obligation, answers: list[Answer]) -> None:
    undecided = [a for a in answers if a.equality.status == UNKNOWN]
    failed = [a for a in answers if a.equality.status in (NEVER, POSSIBLE)]
    if failed:
        _epoch_mismatch(ctx, ob, answers, failed[0])
    if undecided:
        part, answer = undecided[0].part, undecided[0].equality
        ctx.error(
            "FITO007",
            f"{ob.call}: Z3 could not decide whether the epoch "
            f"{part.epoch.text} of '{part.text}' equals {ob.target.text}: unknown "
            f"({answer.reason})",
            part.span,
            notes=tuple(f"'{a.part.text}' has epoch {a.part.epoch.text}" for a in undecided[1:]),
            hint="an undecided equality is not accepted; simplify the requires or raise "
            "the solver limit (fito types --timeout)",
        )


def _epoch_mismatch(ctx: Context, ob: Obligation, answers: list[Answer], first: Answer) -> None:
    part, answer = first.part, first.equality
    target = ob.target.text
    if answer.status == NEVER:
        message = (
            f"{ob.call} combines states of different epochs: '{part.text}' has epoch "
            f"{part.epoch.text}, which can never equal {target} under the facts"
        )
        hint = f"converge only states of epoch {target}: read them with `@ {target}`"
    else:
        message = (
            f"{ob.call} may combine states of different epochs: the epoch "
            f"{part.epoch.text} of '{part.text}' is not provably equal to {target}"
        )
        hint = (
            f"if they are equal, state it: `require {part.epoch.text} == {target}`; "
            f"otherwise converge only states of epoch {target}"
        )
    notes = [_part_note(a.part, a.equality, target) for a in answers]
    notes.append(_facts_note(first.facts))
    if answer.witness:
        shown = ", ".join(f"{n} = {v}" for n, v in answer.witness)
        notes.append(f"counterexample from Z3: {shown}")
    ctx.error("FITO002", message, part.span, notes=tuple(notes), hint=hint)


def _facts_note(facts: tuple[Fact, ...], limit: int = 6) -> str:
    if not facts:
        return "facts: none relate these epochs (no require mentions them)"
    shown = "; ".join(f"{print_expr(f.stmt.expr)} (line {f.stmt.span.line})" for f in facts[:limit])
    more = f"; and {len(facts) - limit} more" if len(facts) > limit else ""
    return f"facts: {shown}{more}"


def _part_note(p: Part, a: Equality, target: str) -> str:
    verdict = {
        PROVED: f"proved equal to {target}",
        NEVER: f"never equal to {target}",
        POSSIBLE: f"not provably equal to {target}",
        UNKNOWN: "undecided",
    }[a.status]
    return f"'{p.text}': {show(p.type)} at epoch {p.epoch.text} ({verdict})"


__all__ = ["SAT", "UNSAT", "decide"]
