"""Z3 decides epoch facts: consistency of a pipeline's requires, and proved epoch equalities.

Every distinct question is sent to Z3 once. Questions are cached up to renaming of epochs
(fito.types.canon): `b7 == a7 + 1 |- a7 == b7` reuses the answer to `e2 == e1 + 1 |- e1 ==
e2`. A fact set gets one incremental solver; a question is a push, a check and a pop.
Z3's `unknown` (a timeout, a resource limit) is an answer of its own, never an acceptance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fito import budget
from fito.types.canon import canonical, restore_names
from fito.types.epochs import (
    TRUE,
    Cmp,
    Div,
    Formula,
    IteBool,
    IteInt,
    Junction,
    Lin,
    Mod,
    Not,
    Truth,
    negate,
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
    model: tuple[tuple[str, int], ...] = ()  # when sat: a value for every variable


@dataclass(frozen=True, slots=True)
class Equality:
    """The answer to `facts |- a == b`: proved, never (unsat), possible, or unknown."""

    status: str
    witness: tuple[tuple[str, int], ...] = ()  # an assignment where a != b (never/possible)
    reason: str = ""


@dataclass(slots=True)
class Stats:
    """Questions asked, Z3 checks issued, and how many the cache or normal forms answered."""

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

    @property
    def distinct_questions(self) -> int:
        """How many different questions reached Z3 (each exactly once, when caching)."""
        return len(self._answers)

    # ------------------------------------------------------------------ public questions
    def consistency(self, facts: Sequence[Formula]) -> Consistency:
        """Are the facts satisfiable together? An unsat answer names a contradictory core."""
        self.stats.questions += 1
        if all(f == TRUE for f in facts):
            self.stats.trivial += 1
            return Consistency(SAT)
        canon = canonical(facts, TRUE)
        answer = self._cached(("consistent", canon.facts), lambda: self._consistency(canon.facts))
        core = tuple(sorted(canon.perm[i] for i in answer.core))
        return Consistency(answer.status, core, answer.reason)  # (model in canonical names)

    def equality(
        self,
        facts: Sequence[Formula],
        a: Lin,
        b: Lin,
        order: Sequence[str] | Mapping[str, int] = (),
        witness: bool = True,
    ) -> Equality:
        """Does `a == b` follow from the facts (assumed consistent)?

        `order` lists epoch names as declared (or maps them to their rank): the witness (an
        assignment of the question's epochs where a != b) shows them in that order. Without
        `witness`, only the status.
        """
        self.stats.questions += 1
        question = equals(a, b)
        if question == TRUE:
            self.stats.trivial += 1
            return Equality(PROVED)
        canon = canonical(facts, question)
        answer = self._cached(
            ("equal", canon.facts, canon.question, witness),
            lambda: self._equality(canon.facts, canon.question, witness),
        )
        rank = order if isinstance(order, Mapping) else {n: i for i, n in enumerate(order)}
        wanted = {n: rank.get(n, len(rank)) for n in sorted(a.variables() | b.variables())}
        return Equality(
            answer.status, restore_names(answer.witness, canon.names, wanted), answer.reason
        )

    def model(
        self, facts: Sequence[Formula], names: Sequence[str]
    ) -> tuple[tuple[str, int], ...] | None:
        """Values of `names` in some model of the facts (0 where unconstrained); None when
        Z3 finds no model (unsat, or unknown)."""
        self.stats.questions += 1
        canon = canonical(facts, TRUE)
        answer = self._cached(("consistent", canon.facts), lambda: self._consistency(canon.facts))
        if answer.status != SAT:
            return None
        back = {canon.names[int(n[1:])]: v for n, v in answer.model}
        return tuple((n, back.get(n, 0)) for n in names)

    def _cached(self, key: Any, compute: Any) -> Any:
        if self.cache and key in self._answers:
            self.stats.cache_hits += 1
            return self._answers[key]
        budget.check()  # the command's deadline and memory, before asking Z3
        answer = compute()
        if self.cache:
            self._answers[key] = answer
        return answer

    # ------------------------------------------------------------------ Z3
    def _solver(self, facts: tuple[Formula, ...]) -> Any:
        solver = self._solvers.get(facts) if self.cache else None
        if solver is None:
            import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

            solver = z3.SimpleSolver()  # measured: the quickest on many small questions
            self._limit(solver)
            solver.add(parse(facts))
            if self.cache:
                self._solvers[facts] = solver
        return solver

    def _limit(self, solver: Any) -> None:
        solver.set("timeout", self._timeout_ms())
        if self.rlimit is not None:
            solver.set("rlimit", int(self.rlimit))
        max_bytes = budget.current().max_bytes
        if max_bytes is not None:  # Z3's own allocations answer `unknown` past the budget
            import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

            z3.set_param("memory_max_size", max(1, max_bytes >> 20))

    def _timeout_ms(self) -> int:
        """The time limit of one Z3 check: timeout_ms, or what the command has left."""
        left = budget.current().remaining()
        if left is None:
            return int(self.timeout_ms)
        return max(1, min(int(self.timeout_ms), int(left * 1000)))

    def _consistency(self, facts: tuple[Formula, ...]) -> Consistency:
        import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

        solver = z3.SimpleSolver()
        self._limit(solver)
        marks = [z3.Bool(f"mark{i}") for i in range(len(facts))]
        solver.add(parse(facts, marked=True))
        self.stats.checks += 1
        try:
            result = solver.check(*marks)
        except z3.Z3Exception as exc:
            return Consistency(UNKNOWN, reason=f"Z3 error: {exc}")
        if result == z3.sat:
            return Consistency(SAT, model=_read(solver.model(), _variables(facts)))
        if result == z3.unsat:
            core = {str(m) for m in solver.unsat_core()}
            return Consistency(UNSAT, tuple(i for i, m in enumerate(marks) if str(m) in core))
        return Consistency(UNKNOWN, reason=solver.reason_unknown())

    def _equality(self, facts: tuple[Formula, ...], question: Formula, witness: bool) -> Equality:
        import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

        differ, model, reason = self._check(facts, negate(question), want_model=witness)
        if differ == z3.unsat:
            return Equality(PROVED)
        if differ != z3.sat:
            return Equality(UNKNOWN, reason=reason)
        shown: tuple[tuple[str, int], ...] = ()
        if witness:
            names = sorted(question.variables(), key=_canonical_index)
            shown = self._small_witness(facts, question, names) or _read(model, names)
        meet, _, reason = self._check(facts, question, want_model=False)
        if meet == z3.unsat:
            return Equality(NEVER, shown)
        if meet == z3.sat:
            return Equality(POSSIBLE, shown)
        return Equality(
            UNKNOWN,
            shown,
            reason=f"{reason} (the epochs are not provably "
            "equal; whether they can be equal is undecided)",
        )

    def _check(
        self, facts: tuple[Formula, ...], extra: Formula, want_model: bool
    ) -> tuple[Any, Any, str]:
        solver = self._solver(facts)
        import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

        solver.push()
        try:
            solver.set("timeout", self._timeout_ms())  # a cached solver: the time left now
            solver.add(to_z3(extra))
            self.stats.checks += 1
            result = solver.check()
            model = solver.model() if want_model and result == z3.sat else None
            reason = solver.reason_unknown() if result == z3.unknown else ""
        except z3.Z3Exception as exc:  # Z3 gave up in a way check() did not report
            result, model, reason = z3.unknown, None, f"Z3 error: {exc}"
        finally:
            solver.pop()
        return result, model, reason

    def _small_witness(
        self, facts: tuple[Formula, ...], question: Formula, names: list[str]
    ) -> tuple[tuple[str, int], ...] | None:
        """A counterexample of least magnitude, non-negative where possible (for people)."""
        if not self.small_witness or not names:
            return None
        import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

        opt = z3.Optimize()
        opt.set("timeout", min(self._timeout_ms(), 2_000))
        if self.rlimit is not None:
            opt.set("rlimit", int(self.rlimit))
        for f in facts:
            opt.add(to_z3(f))
        opt.add(to_z3(negate(question)))
        vs = [z3.Int(n) for n in names]
        opt.minimize(z3.Sum([z3.If(v >= 0, v, -v) for v in vs]))
        opt.minimize(z3.Sum([z3.If(v < 0, 1, 0) for v in vs]))
        opt.minimize(z3.If(vs[0] >= 0, vs[0], -vs[0]))  # ties: the first epoch smallest
        self.stats.witness_searches += 1
        if opt.check() != z3.sat:
            return None
        return _read(opt.model(), names)


def _canonical_index(name: str) -> int:
    return int(name[1:])


def _variables(facts: Sequence[Formula]) -> list[str]:
    return sorted(set().union(*(f.variables() for f in facts)), key=_canonical_index)


def _read(model: Any, names: Sequence[str]) -> tuple[tuple[str, int], ...]:
    import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

    return tuple((n, model.eval(z3.Int(n), model_completion=True).as_long()) for n in names)


# ---------------------------------------------------------------------------- translation
def to_z3(f: Formula) -> Any:
    """The Z3 expression of a canonical formula."""
    import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

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


def parse(facts: Sequence[Formula], marked: bool = False) -> Any:
    """The facts as Z3 assertions, built through one SMT-LIB text (far quicker than the
    Python API for large fact sets); `marked` guards fact i by the Boolean `mark{i}`."""
    import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

    lines = [f"(declare-const {v} Int)" for v in _variables(facts)]
    for i, f in enumerate(facts):
        body = smt2(f)
        if marked:
            lines.append(f"(declare-const mark{i} Bool)")
            body = f"(=> mark{i} {body})"
        lines.append(f"(assert {body})")
    return z3.parse_smt2_string("\n".join(lines))


def smt2(f: Formula) -> str:
    """A formula over canonical variables as an SMT-LIB term."""
    if isinstance(f, Truth):
        return "true" if f.value else "false"
    if isinstance(f, Cmp):
        return f"({'=' if f.op == 'eq' else '<='} {_smt2_lin(f.lin)} 0)"
    if isinstance(f, Not):
        return f"(not {smt2(f.arg)})"
    if isinstance(f, Junction):
        return f"({f.op} {' '.join(smt2(a) for a in f.args)})"
    assert isinstance(f, IteBool)
    return f"(ite {smt2(f.cond)} {smt2(f.then)} {smt2(f.orelse)})"


def _smt2_int(n: int) -> str:
    return str(n) if n >= 0 else f"(- {-n})"


def _smt2_lin(t: Lin) -> str:
    parts = [_smt2_atom(a) if c == 1 else f"(* {_smt2_int(c)} {_smt2_atom(a)})" for a, c in t.terms]
    if t.const or not parts:
        parts.append(_smt2_int(t.const))
    return parts[0] if len(parts) == 1 else f"(+ {' '.join(parts)})"


def _smt2_atom(a: object) -> str:
    if isinstance(a, str):
        return a
    if isinstance(a, (Div, Mod)):
        num = _smt2_lin(a.num)
        # floor division: Euclidean `div` by a positive divisor, after flipping both signs
        q = f"(div {num} {a.k})" if a.k > 0 else f"(div (- {num}) {-a.k})"
        return q if isinstance(a, Div) else f"(- {num} (* {_smt2_int(a.k)} {q}))"
    assert isinstance(a, IteInt)
    return f"(ite {smt2(a.cond)} {_smt2_lin(a.then)} {_smt2_lin(a.orelse)})"


def lin_to_z3(t: Lin) -> Any:
    import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

    parts = []
    for a, c in t.terms:
        z = _atom_to_z3(a)
        parts.append(z if c == 1 else c * z)
    if t.const or not parts:
        parts.append(z3.IntVal(t.const))
    return parts[0] if len(parts) == 1 else z3.Sum(parts)


def _atom_to_z3(a: object) -> Any:
    import z3  # lazy-import: z3 loads slowly; only an epoch question needs it

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
