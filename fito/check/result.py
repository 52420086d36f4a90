"""Verdicts of assertions: what the model checker reports and the printers show."""

from __future__ import annotations

from dataclasses import dataclass

from fito import display
from fito.check.traces.records import Trace
from fito.diagnostics import Span

HOLDS, FAILS, UNKNOWN = "holds", "fails", "unknown"


@dataclass(frozen=True, slots=True)
class ModelError:
    """A value out of its declared range, a division by zero, ...: a failure with a trace."""

    message: str
    span: Span


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of one assertion."""

    text: str  # the assertion as written (canonical form)
    line: int
    verdict: str  # holds | fails | unknown
    states: int = 0
    transitions: int = 0
    seconds: float = 0.0
    trace: tuple[str, ...] = ()  # one label per transition (the run's labels, when it has one)
    reason: str | None = None  # why unknown, or what failed
    error: ModelError | None = None
    limit_hit: bool = False  # unknown because --max-states or --timeout was reached
    depth: int = 0
    engine: str = ""
    run: Trace | None = None  # the counterexample or witness as data (fito.check.traces.records)
    proof: str | None = None  # how the symbolic engine proved it (spacer, k-induction)
    invariant: tuple[str, ...] = ()  # its inductive strengthening, in spec syntax (conjuncts)
    certificate: object = None  # what the proof kit's kernel re-checks (fito/check/symbolic)
    kernel: str = ""  # what the kernel said of the certificate
    reductions: tuple[str, ...] = ()  # what ran and what was switched off (fito/check/reduce)
    unreduced_states: int = 0  # with symmetry: the states of the unreduced graph they stand for
    fairness: tuple[str, ...] = ()  # ltl: the fairness assumptions the verdict rests on
    loop_start: int = 0  # a lasso: the index of the first step of its cycle (0: none)
    notes: tuple[str, ...] = ()  # what the engine says of how it ran (docs/ltl.md)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "text": self.text,
            "line": self.line,
            "verdict": self.verdict,
            "states": self.states,
            "transitions": self.transitions,
            "seconds": round(self.seconds, 6),
            "trace": list(self.trace),
        }
        if self.reason:
            out["reason"] = self.reason
        if self.error is not None:
            out["error"] = {
                "message": self.error.message,
                "line": self.error.span.line,
                "column": self.error.span.column,
            }
        if self.engine:
            out["engine"] = self.engine
        if self.run is not None:
            out["run"] = self.run.to_json()
        if self.proof is not None:
            out["proof"] = self.proof
            out["invariant"] = list(self.invariant)
            out["kernel"] = self.kernel
            if self.certificate is not None:
                out["certificate"] = self.certificate
        if self.reductions:
            out["reductions"] = list(self.reductions)
        if self.unreduced_states:
            out["unreduced_states"] = self.unreduced_states
        if self.fairness or self.engine == "ltl":
            out["fairness"] = list(self.fairness)
        if self.loop_start:
            out["loop_start"] = self.loop_start
        if self.notes:
            out["notes"] = list(self.notes)
        return out

    def _repr_html_(self) -> str:
        """Notebooks: the verdict as a table row, its run as a chart and a table."""
        return display.html(self)
