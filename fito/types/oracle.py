"""Z3 decides epoch facts: consistency of a pipeline's requires, and proved epoch equalities.

Every question is asked once: answers are cached under a canonical key (the facts that can
matter, i.e. those sharing variables with the question, and the canonical question itself).
A fact set gets one incremental solver; each question is a push, a check and a pop. Z3's
`unknown` (a timeout, a resource limit) is an answer of its own, never an acceptance.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from fito.types.epochs import (
    Cmp, Div, Formula, IteBool, IteInt, Junction, Lin, Mod, Not, Truth, negate,
)
from fito.types.epochs import equality as equals

PROVED, NEVER, POSSIBLE, UNKNOWN = "proved", "never", "possible", "unknown"
SAT, UNSAT = "sat", "unsat"
DEFAULT_TIMEOUT_MS = 10_000


@dataclass(frozen=True, slots=True)
class Consistency:
    """Whether a set of facts has a model; `core` indexes a contradictory subset."""

    status: str  # sat | unsat | unknown
    core: tuple[int, ...] = ()
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Equality:
    """The answer to `facts |- a == b`: proved, never (unsat), possible, or unknown."""

    status: str
    witness: tuple[tuple[str, int], ...] = ()  # an assignment where a != b (never/possible)
    reason: str = ""


@dataclass(slots=True)
class Stats:
    """How many Z3 checks were issued, and how many questions the cache answered."""

    checks: int = 0
    witness_searches: int = 0
    cache_hits: int = 0
    trivial: int = 0
    questions: int = 0


@dataclass(slots=True)
class EpochOracle:
    """The Z3 side of the checker; one per `check_pipelines` run (or shared by a caller)."""

    timeout_ms: int = DEFAULT_TIMEOUT_MS
    rlimit: int | None = None  # a deterministic resource limit (tests)
    cache: bool = True
    small_witness: bool = True
    stats: Stats = field(default_factory=Stats)
    _answers: dict[Any, Any] = field(default_factory=dict)
    _solvers: dict[Any, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ public questions
    def consistency(self, facts: Sequence[Formula]) -> Consistency:
        """Are the facts satisfiable together? An unsat answer names a contradictory core."""
        self.stats.questions += 1
        if all(f == Truth(True) for f in facts):
            self.stats.trivial += 1
            return Consistency(SAT)
        key = ("consistent", tuple(facts))
        if self.cache and key in self._answers:
            self.stats.cache_hits += 1
            return self._answers[key]
        answer = self._consistency(facts)
        if self.cache:
            self._answers[key] = answer
        return answer

    def equality(self, facts: Sequence[Formula], a: Lin, b: Lin,
                 order: Sequence[str] = ()) -> Equality:
        """Does `a == b` follow from the facts (assumed consistent)?

        `order` lists epoch names as declared: the witness shows them in that order and
        prefers small values for the first ones.
        """
        self.stats.questions += 1
        question = equals(a, b)
        if question == Truth(True):
            self.stats.trivial += 1
            return Equality(PROVED)
        wanted = a.variables() | b.variables()
        rank = {n: i for i, n in enumerate(order)}
        names = tuple(sorted(wanted, key=lambda n: (rank.get(n, len(rank)), n)))
        key = ("equal", tuple(facts), question, names)
        if self.cache and key in self._answers:
            self.stats.cache_hits += 1
            return self._answers[key]
        answer = self._equality(tuple(facts), question, names)
        if self.cache:
            self._answers[key] = answer
        return answer

    # ------------------------------------------------------------------ Z3
    def _solver(self, facts: tuple[Formula, ...]) -> Any:
        solver = self._solvers.get(facts) if self.cache else None
        if solver is None:
            import z3

            solver = z3.Solver()
            self._limit(solver)
            for f in facts:
                solver.add(to_z3(f))
            if self.cache:
                self._solvers[facts] = solver
        return solver

    def _limit(self, solver: Any) -> None:
        solver.set("timeout", int(self.timeout_ms))
        if self.rlimit is not None:
            solver.set("rlimit", int(self.rlimit))

    def _consistency(self, facts: Sequence[Formula]) -> Consistency:
        import z3

        solver = z3.Solver()
        self._limit(solver)
        marks = [z3.Bool(f"__fact{i}") for i in range(len(facts))]
        for mark, f in zip(marks, facts):
            solver.add(z3.Implies(mark, to_z3(f)))
        self.stats.checks += 1
        result = solver.check(*marks)
        if result == z3.sat:
            return Consistency(SAT)
        if result == z3.unsat:
            core = {str(m) for m in solver.unsat_core()}
            return Consistency(UNSAT, tuple(i for i, m in enumerate(marks) if str(m) in core))
        return Consistency(UNKNOWN, reason=solver.reason_unknown())

    def _equality(self, facts: tuple[Formula, ...], question: Formula,
                  names: tuple[str, ...]) -> Equality:
        import z3

        solver = self._solver(facts)
        solver.push()
        try:
            solver.add(to_z3(negate(question)))
            self.stats.checks += 1
            differ = solver.check()
            if differ == z3.unsat:
                return Equality(PROVED)
            if differ != z3.sat:
                return Equality(UNKNOWN, reason=solver.reason_unknown())
            model = solver.model()
        finally:
            solver.pop()
        witness = self._small_witness(facts, question, names) or _read(model, names)
        solver.push()
        try:
            solver.add(to_z3(question))
            self.stats.checks += 1
            can_meet = solver.check()
        finally:
            solver.pop()
        if can_meet == z3.unsat:
            return Equality(NEVER, witness)
        if can_meet == z3.sat:
            return Equality(POSSIBLE, witness)
        return Equality(UNKNOWN, witness, reason=f"{solver.reason_unknown()} (the epochs are "
                        "not provably equal; whether they can be equal is undecided)")

    def _small_witness(self, facts: tuple[Formula, ...], question: Formula,
                       names: tuple[str, ...]) -> tuple[tuple[str, int], ...] | None:
        """A counterexample of least magnitude, non-negative where possible (for people)."""
        if not self.small_witness or not names:
            return None
        import z3

        opt = z3.Optimize()
        opt.set("timeout", int(min(self.timeout_ms, 2_000)))
        if self.rlimit is not None:
            opt.set("rlimit", int(self.rlimit))
        for f in facts:
            opt.add(to_z3(f))
        opt.add(to_z3(negate(question)))
        vs = [z3.Int(n) for n in names]
        opt.minimize(z3.Sum([z3.If(v >= 0, v, -v) for v in vs]))
        opt.minimize(z3.Sum([z3.If(v < 0, 1, 0) for v in vs]))
        opt.minimize(z3.If(vs[0] >= 0, vs[0], -vs[0]))  # ties: the first-declared epoch smallest
        self.stats.witness_searches += 1
        if opt.check() != z3.sat:
            return None
        return _read(opt.model(), names)


def _read(model: Any, names: Iterable[str]) -> tuple[tuple[str, int], ...]:
    import z3

    out = []
    for n in names:
        v = model.eval(z3.Int(n), model_completion=True)
        out.append((n, v.as_long()))
    return tuple(out)


# ---------------------------------------------------------------------------- translation
def to_z3(f: Formula) -> Any:
    """The Z3 expression of a canonical formula."""
    import z3

    if isinstance(f, Truth):
        return z3.BoolVal(f.value)
    if isinstance(f, Cmp):
        t = lin_to_z3(f.lin)
        return t == 0 if f.op == "eq" else t <= 0
    if isinstance(f, Not):
        return z3.Not(to_z3(f.arg))
    if isinstance(f, Junction):
        args = [to_z3(a) for a in f.args]
        return z3.And(*args) if f.op == "and" else z3.Or(*args)
    assert isinstance(f, IteBool)
    return z3.If(to_z3(f.cond), to_z3(f.then), to_z3(f.orelse))


def lin_to_z3(t: Lin) -> Any:
    import z3

    parts = []
    for a, c in t.terms:
        z = _atom_to_z3(a)
        parts.append(z if c == 1 else c * z)
    if t.const or not parts:
        parts.append(z3.IntVal(t.const))
    return parts[0] if len(parts) == 1 else z3.Sum(parts)


def _atom_to_z3(a: object) -> Any:
    import z3

    if isinstance(a, str):
        return z3.Int(a)
    if isinstance(a, Div):
        return _floor_div(lin_to_z3(a.num), a.k)
    if isinstance(a, Mod):
        num = lin_to_z3(a.num)
        return num - a.k * _floor_div(num, a.k)
    assert isinstance(a, IteInt)
    return z3.If(to_z3(a.cond), lin_to_z3(a.then), lin_to_z3(a.orelse))


def _floor_div(num: Any, k: int) -> Any:
    # Z3's integer division is Euclidean; for k > 0 it rounds toward negative infinity,
    # and num // k == (-num) // (-k) turns a negative divisor into a positive one.
    return num / k if k > 0 else (-num) / (-k)
