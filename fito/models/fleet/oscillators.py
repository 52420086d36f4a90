"""The fleet model of paper B: N checkpointing jobs as integrate-and-fire oscillators.

Job i computes (accumulates work W_i at rate min(1, C/n_c)), then writes (drains volume V_i
at rate f(n_w)/n_w); finishing the compute is a *firing*. A job's phase is its position
p in [0, W_i + V_i): p < W_i computing with p work done, p >= W_i writing with p - W_i
drained (p = W_i: it has just fired). Models live in `models/*.toml`; see docs/fleet.md.
"""

from __future__ import annotations

import math
import random
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, TypeVar

from fito import budget
from fito.errors import FitoError
from fito.models.fleet.expr import Expr, ExprError, Number, number, parse_expr

TOP_KEYS = (
    "name",
    "description",
    "jobs",
    "work",
    "volume",
    "throughput",
    "capacity",
    "cycles",
    "params",
    "phases",
)
PHASE_KINDS = ("values", "ramp", "random", "even", "together")
MAX_JOBS = 1_000_000


class ModelError(FitoError):
    """Invalid model input: a message, where it is, and the exit status (1 or 2)."""

    def __init__(
        self,
        code: str,
        message: str,
        key: str | None = None,
        status: int = 1,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code, self.key, self.status, self.hint = code, key, status, hint


BAD_MODEL, BAD_SYNTAX = "S101", "P101"


@dataclass(frozen=True, slots=True)
class PhaseSpec:
    """How the initial phases are given: explicit positions or a generator."""

    kind: str = "even"
    values: tuple[Fraction, ...] = ()
    step: Fraction = Fraction(1)
    start: Fraction | None = None
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Fleet:
    """A resolved fleet: every number exact, f(n) parsed, phases as positions."""

    name: str
    work: tuple[Fraction, ...]
    volume: tuple[Fraction, ...]
    throughput: Expr
    capacity: Fraction | None
    phases: tuple[Fraction, ...]
    params: tuple[tuple[str, Fraction], ...] = ()
    cycles: int = 10
    phase_spec: PhaseSpec = PhaseSpec()

    @property
    def jobs(self) -> int:
        return len(self.work)

    @property
    def is_capped(self) -> bool:
        """True when the cap binds for some n_c <= N."""
        return self.capacity is not None and self.capacity < self.jobs

    @property
    def is_identical(self) -> bool:
        return len(set(self.work)) == 1 and len(set(self.volume)) == 1

    def f(self, n: int) -> Number:
        """Aggregate write throughput f(n)."""
        env: dict[str, Number] = dict(self.params)
        env["n"], env["N"] = Fraction(n), Fraction(self.jobs)
        return self.throughput.evaluate(env)

    def throughputs(self) -> tuple[Number, ...]:
        """(f(1), ..., f(N)), each checked positive and finite."""
        return tuple(_positive_f(self, n) for n in _polled(range(1, self.jobs + 1)))

    def compute_throughput(self, n: int) -> Fraction:
        """Aggregate compute throughput g(n) = min(n, C)."""
        return Fraction(n) if self.capacity is None else min(Fraction(n), self.capacity)


def _positive_f(fleet: Fleet, n: int) -> Number:
    try:
        value = fleet.f(n)
    except (ExprError, ArithmeticError, ValueError) as exc:
        raise ModelError(
            BAD_MODEL, f"throughput f(n) cannot be evaluated at n = {n}: {exc}", "throughput"
        ) from None
    if not (isinstance(value, Fraction) or math.isfinite(value)) or value <= 0:
        raise ModelError(
            BAD_MODEL,
            f"throughput f({n}) = {value} is not positive",
            "throughput",
            hint="f(n) is the aggregate write throughput of n writers",
        )
    return value


# ---------------------------------------------------------------------------- loading
def parse_toml(text: str) -> dict[str, Any]:
    """The raw table of a model file; TOML syntax errors become ModelError (status 2)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(BAD_SYNTAX, f"invalid TOML: {exc}", None, status=2) from None


def load_fleet(text: str, name: str = "fleet", overrides: Mapping[str, Any] | None = None) -> Fleet:
    """Parse a model file's text, apply `overrides` (flag name -> value), resolve."""
    raw = parse_toml(text)
    raw.setdefault("name", name)
    return build_fleet({**raw, **dict(overrides or {})})


def build_fleet(raw: Mapping[str, Any]) -> Fleet:
    """Resolve a raw table (TOML values or command-line strings) into a Fleet."""
    unknown = sorted(set(raw) - set(TOP_KEYS))
    if unknown:
        raise ModelError(
            BAD_MODEL,
            f"unknown key {unknown[0]!r}",
            unknown[0],
            hint="known keys: " + ", ".join(TOP_KEYS),
        )
    spec = _phase_spec(raw.get("phases", {"kind": "even"}))
    jobs = _jobs(raw, spec)
    params = _params(raw.get("params", {}), jobs)  # every expression may use N, the fleet size
    work = _per_job(raw, "work", jobs, params)
    volume = _per_job(raw, "volume", jobs, params)
    fleet = Fleet(
        name=str(raw.get("name", "fleet")),
        work=work,
        volume=volume,
        throughput=_expr(raw.get("throughput", "1"), "throughput", params),
        capacity=_capacity(raw.get("capacity", "inf"), params),
        phases=(),
        params=tuple(sorted((k, v) for k, v in params.items() if k != "N")),
        cycles=_positive_int(raw.get("cycles", 10), "cycles"),
        phase_spec=spec,
    )
    fleet.throughputs()
    return replace(fleet, phases=resolve_phases(spec, work, volume))


def _params(table: Any, jobs: int) -> dict[str, Fraction]:
    """The parameters in order; each may use N and the parameters above it."""
    if not isinstance(table, Mapping):
        raise ModelError(BAD_MODEL, "[params] must be a table of numbers", "params")
    out: dict[str, Fraction] = {"N": Fraction(jobs)}
    for key, value in table.items():
        if key in ("n", "N") or not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", key):
            raise ModelError(BAD_MODEL, f"bad parameter name {key!r}", "params")
        out[key] = _rational(value, f"params.{key}", out)
    return out


def _rational(value: Any, key: str, params: Mapping[str, Fraction]) -> Fraction:
    if isinstance(value, str):
        try:
            result = _expr(value, key, params).evaluate(dict(params))
        except ExprError as exc:
            raise ModelError(BAD_MODEL, f"{key}: {exc}", key) from None
        if isinstance(result, float):
            raise ModelError(BAD_MODEL, f"{key} = {value!r} is not a rational number", key)
        return result
    try:
        return number(value)
    except ExprError as exc:
        raise ModelError(BAD_MODEL, f"{key}: {exc}", key) from None


def _expr(value: Any, key: str, params: Mapping[str, Fraction]) -> Expr:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            value = str(number(value))
        except ExprError as exc:  # nan, inf, or too many digits
            raise ModelError(BAD_MODEL, f"{key}: {exc}", key) from None
    if not isinstance(value, str):
        raise ModelError(BAD_MODEL, f"{key} must be a number or an expression string", key)
    try:
        expr = parse_expr(value)
    except ExprError as exc:
        raise ModelError(
            BAD_SYNTAX, f"{key}: {exc} (at column {exc.offset + 1} of {value!r})", key, status=2
        ) from None
    allowed = set(params) | ({"n"} if key == "throughput" else set())
    unknown = [x for x in expr.names() if x not in allowed]
    if unknown:
        raise ModelError(
            BAD_MODEL,
            f"{key}: unknown name {unknown[0]!r}",
            key,
            hint="define it under [params]" + ("; f(n) may use n" if key == "throughput" else ""),
        )
    return expr


def _positive_int(value: Any, key: str) -> int:
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ModelError(BAD_MODEL, f"{key} must be a positive integer", key)
    return value


def _jobs(raw: Mapping[str, Any], spec: PhaseSpec) -> int:
    if "jobs" in raw:
        jobs = _positive_int(raw["jobs"], "jobs")
    else:
        lengths = [len(raw[k]) for k in ("work", "volume") if isinstance(raw.get(k), list)]
        lengths += [len(spec.values)] if spec.kind == "values" else []
        if not lengths:
            raise ModelError(
                BAD_MODEL,
                "the number of jobs is not given",
                "jobs",
                hint="set `jobs = N` or give per-job lists",
            )
        jobs = lengths[0]
    if jobs > MAX_JOBS:
        raise ModelError(BAD_MODEL, f"jobs = {jobs} exceeds the limit {MAX_JOBS}", "jobs")
    return jobs


def _per_job(
    raw: Mapping[str, Any], key: str, jobs: int, params: Mapping[str, Fraction]
) -> tuple[Fraction, ...]:
    value = raw.get(key, 1)
    values = value if isinstance(value, list) else [value] * jobs
    if len(values) != jobs:
        raise ModelError(BAD_MODEL, f"{key} has {len(values)} values for {jobs} jobs", key)
    out = tuple(_rational(v, key, params) for v in _polled(values))
    if any(v <= 0 for v in out):
        raise ModelError(BAD_MODEL, f"{key} must be positive", key)
    return out


def _capacity(value: Any, params: Mapping[str, Fraction]) -> Fraction | None:
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinity", "none"):
        return None
    if isinstance(value, float) and math.isinf(value) and value > 0:
        return None
    cap = _rational(value, "capacity", params)
    if cap <= 0:
        raise ModelError(BAD_MODEL, 'capacity must be positive (or "inf")', "capacity")
    return cap


# ---------------------------------------------------------------------------- phases
def _phase_spec(value: Any) -> PhaseSpec:
    if isinstance(value, PhaseSpec):
        return value
    if isinstance(value, list):
        value = {"kind": "values", "values": value}
    if isinstance(value, str):
        value = parse_phase_flag(value)
    if not isinstance(value, Mapping):
        raise ModelError(BAD_MODEL, "phases must be a list of positions or a table", "phases")
    kind = value.get("kind", "values" if "values" in value else "even")
    if kind not in PHASE_KINDS:
        raise ModelError(
            BAD_MODEL,
            f"unknown phases kind {kind!r}",
            "phases",
            hint="one of " + ", ".join(PHASE_KINDS),
        )
    extra = sorted(set(value) - {"kind", "values", "step", "start", "seed"})
    if extra:
        raise ModelError(BAD_MODEL, f"unknown key phases.{extra[0]}", "phases")
    try:
        seed = value.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ExprError("seed must be an integer")
        if not isinstance(value.get("values", ()), (list, tuple)):
            raise ExprError("values must be a list of positions")
        return PhaseSpec(
            kind=kind,
            values=tuple(number(v) for v in value.get("values", ())),
            step=number(value.get("step", 1)),
            seed=seed,
            start=None if value.get("start") is None else number(value["start"]),
        )
    except ExprError as exc:
        raise ModelError(BAD_MODEL, f"phases: {exc}", "phases") from None


def parse_phase_flag(text: str) -> dict[str, Any]:
    """`--phases`: "0,3,7/2" | "even" | "together[:P]" | "ramp:STEP[:START]" | "random:SEED"."""
    head, _, rest = text.strip().partition(":")
    if head in ("even", "together", "ramp", "random"):
        parts = [p for p in rest.split(":") if p] if rest else []
        table: dict[str, Any] = {"kind": head}
        if head == "random":
            if parts and not re.fullmatch(r"-?\d+", parts[0]):
                raise ModelError(
                    BAD_MODEL,
                    f"--phases random:SEED needs an integer seed, got {parts[0]!r}",
                    "phases",
                )
            table["seed"] = int(parts[0]) if parts else 0
        elif head == "ramp":
            table.update(zip(("step", "start"), parts))
        elif parts:
            table["start"] = parts[0]
        return table
    return {"kind": "values", "values": [p.strip() for p in text.split(",") if p.strip()]}


def resolve_phases(
    spec: PhaseSpec, work: Sequence[Fraction], volume: Sequence[Fraction]
) -> tuple[Fraction, ...]:
    """The initial positions p_i in [0, W_i + V_i) that the spec describes."""
    jobs = len(work)
    cycle = [w + v for w, v in _polled(zip(work, volume))]
    if spec.kind == "values":
        if len(spec.values) != jobs:
            raise ModelError(
                BAD_MODEL,
                f"phases has {len(spec.values)} values for {jobs} jobs",
                "phases",
                hint="give one position per job, or a generator "
                "(even, ramp:STEP, random:SEED, together)",
            )
        for i, (p, c) in enumerate(_polled(zip(spec.values, cycle))):
            if not 0 <= p < c:
                raise ModelError(
                    BAD_MODEL,
                    f"phase of job {i} is {p}, outside [0, {c})",
                    "phases",
                    hint="a position is work done (< W) or W + volume drained (< W + V)",
                )
        return spec.values
    if spec.kind == "random":
        rng = random.Random(spec.seed)
        return tuple(Fraction(rng.getrandbits(32), 1 << 32) * c for c in _polled(cycle))
    start = [w if spec.start is None else spec.start for w in work]
    if spec.kind == "together":
        return tuple(s % c for s, c in _polled(zip(start, cycle)))
    steps = [spec.step] * jobs if spec.kind == "ramp" else [c / jobs for c in cycle]
    return tuple((s - i * d) % c for i, (s, d, c) in enumerate(_polled(zip(start, steps, cycle))))


T = TypeVar("T")


def _polled(items: Iterable[T]) -> Iterator[T]:
    """items, with the command's deadline and memory (fito.budget) looked at on each."""
    check = budget.current().check
    for item in items:
        check()
        yield item
