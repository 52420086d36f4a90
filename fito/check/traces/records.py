"""Counterexamples and witnesses as data: what every report reads (text, --explain, JSON,
SARIF, HTML, notebooks, replay, the pytest plugin, the language server).

A `Trace` is the run from the initial state: per transition the event, the processes that
moved, the cells it changed and the whole state after it; and `final`, what the run shows
(the violated expression, the deadlock with what each process waits for, the refused event,
the model error, the loop). The values hold names and shown values only, nothing of the
engine: `fito.check.traces.from_states.build_trace` is the one place that builds them from an
engine's states, so the reports do not change when the engine does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fito import display

EVENT, TAU, HIDDEN, TICK, ASSIGN = "event", "tau", "hidden", "tick", "assign"
STEP_KINDS = (EVENT, TAU, HIDDEN, TICK, ASSIGN)

# what `final` says the run shows
VIOLATION = "violation"  # `always`: the last state violates the expression
WITNESS = "witness"  # `reaches`: the last state satisfies it
DEADLOCK = "deadlock"  # no transition is possible in the last state
REFUSAL = "refusal"  # `[T=`: the specification cannot perform the last event
MODEL_ERROR = "model-error"  # the last step (or the last state's guards) raised a model error
END = "end"  # `eventually`: the run deadlocks or terminates first
LOOP = "loop"  # `eventually`: steps loop_start.. repeat forever, fairly
FAILURE_KINDS = (VIOLATION, WITNESS, DEADLOCK, REFUSAL, MODEL_ERROR, END, LOOP)

OTHER = ""  # the domain of cells not indexed by a domain (enumeration member)

Cells = tuple[tuple[str, str], ...]  # (cell name, shown value), in layout order


@dataclass(frozen=True, slots=True)
class CellInfo:
    """One cell (one element of a cell array): its name, persistence domain and durability."""

    name: str  # `saved[gpu]`
    domain: str  # the member of its first enumeration index (`gpu`), or OTHER
    durable: bool


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One transition of the run."""

    index: int  # 1-based position in the run
    kind: str  # event | tau | hidden | tick | assign
    label: str  # as the one-line trace shows it: `flush.gpu.1`, `tau`
    channel: str | None  # events and hidden events
    values: tuple[str, ...]  # the event's field values, shown
    movers: tuple[str, ...]  # the processes that moved, by name
    writes: Cells  # the cells whose value changed, with the new value
    state: Cells  # every cell after the step
    crash: bool = False  # an event of channel crash: volatile cells reset
    crash_reset: tuple[str, ...] = ()  # ... those of them whose value it changed
    line: int | None = None  # the source line of the prefix that made the step
    failed: bool = False  # its effect raised the model error (state as before)

    @property
    def is_internal(self) -> bool:
        """An internal step that changes no cell (collapsed in the text report)."""
        return self.kind in (TAU, HIDDEN) and not self.writes and not self.failed


@dataclass(frozen=True, slots=True)
class Waiting:
    """In a deadlock: one process and the events it waits for."""

    process: str
    offers: tuple[str, ...] = ()  # events enabled on its side, waiting for a partner
    guarded: tuple[str, ...] = ()  # events whose guard is false in this state
    terminated: bool = False


@dataclass(frozen=True, slots=True)
class Failure:
    """What the run shows at its end."""

    kind: str  # one of FAILURE_KINDS
    message: str  # one line, as the text report shows it
    expression: str | None = None  # the assertion's expression (violation, witness, end, loop)
    cells: Cells = ()  # the cells the expression reads, in the last state
    waiting: tuple[Waiting, ...] = ()  # deadlock: each process and what it waits for
    event: str | None = None  # refusal: the event the specification cannot perform
    code: str | None = None  # model error: its code, and the source position
    line: int | None = None
    column: int | None = None
    loop_start: int | None = None  # loop: the index of the first step that repeats


@dataclass(frozen=True, slots=True)
class Trace:
    """A run from the initial state and what it shows."""

    process: str  # the process checked, as written
    cells: tuple[CellInfo, ...]
    initial_state: Cells
    steps: tuple[TraceStep, ...]
    final: Failure
    _domain: dict[str, str] = field(default_factory=dict, init=False, compare=False, repr=False)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(s.label for s in self.steps)

    @property
    def last_state(self) -> Cells:
        return self.steps[-1].state if self.steps else self.initial_state

    def state_before(self, index: int) -> Cells:
        """The state before step `index` (1-based)."""
        return self.steps[index - 2].state if index > 1 else self.initial_state

    def domain_of(self, cell: str) -> str:
        if not self._domain:
            self._domain.update((c.name, c.domain) for c in self.cells)
        return self._domain.get(cell, OTHER)

    def domains(self) -> tuple[str, ...]:
        """The persistence domains, in the order of their first cell (OTHER last)."""
        seen = dict.fromkeys(c.domain for c in self.cells if c.domain != OTHER)
        if any(c.domain == OTHER for c in self.cells):
            seen[OTHER] = None
        return tuple(seen)

    def _repr_html_(self) -> str:
        """Notebooks: the run as a message-sequence chart and a table of its steps."""
        return display.html(self)

    def to_json(self) -> dict[str, object]:
        """The trace as JSON data (docs/report-schema.json, `run`)."""
        return {
            "process": self.process,
            "cells": [
                {"name": c.name, "domain": c.domain or None, "durable": c.durable}
                for c in self.cells
            ],
            "initial_state": typed(self.initial_state),
            "steps": [_step_json(s) for s in self.steps],
            "final": _failure_json(self.final),
        }

    @classmethod
    def from_json(cls, data: dict) -> Trace:
        """The inverse of to_json (raises KeyError, TypeError or ValueError on bad data)."""
        cells = tuple(
            CellInfo(str(c["name"]), str(c["domain"] or OTHER), bool(c["durable"]))
            for c in data["cells"]
        )
        steps = tuple(_step_of(s) for s in data["steps"])
        return cls(
            str(data["process"]),
            cells,
            _cells_of(data["initial_state"]),
            steps,
            _failure_of(data["final"]),
        )


def value_json(shown: str) -> int | bool | str:
    """A shown value as JSON gives it: an integer as a number, a Bool as true or false, an
    enumeration member as its name (the report's version 2, docs/reports.md)."""
    if shown in ("true", "false"):
        return shown == "true"
    try:
        return int(shown)
    except ValueError:
        return shown


def shown_value(v: object) -> str:
    """The inverse of value_json (a version 1 report's strings are taken as they are)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str)):
        return str(v)
    raise TypeError(f"a value is a number, true, false or a name, not {v!r}")


def typed(cells: Cells) -> dict[str, int | bool | str]:
    return {name: value_json(v) for name, v in cells}


def _cells_of(d: object) -> Cells:
    if not isinstance(d, dict):
        raise TypeError("a state is an object of cell names to values")
    return tuple((str(k), shown_value(v)) for k, v in d.items())


def _step_json(s: TraceStep) -> dict[str, object]:
    out: dict[str, object] = {
        "index": s.index,
        "kind": s.kind,
        "label": s.label,
        "channel": s.channel,
        "values": [value_json(v) for v in s.values],
        "processes": list(s.movers),
        "writes": typed(s.writes),
        "state": typed(s.state),
    }
    if s.crash:
        out["crash"] = True
        out["crash_reset"] = list(s.crash_reset)
    if s.line is not None:
        out["line"] = s.line
    if s.failed:
        out["failed"] = True
    return out


def _step_of(d: dict) -> TraceStep:
    kind = str(d["kind"])
    if kind not in STEP_KINDS:
        raise ValueError(f"unknown step kind {kind!r}")
    return TraceStep(
        int(d["index"]),
        kind,
        str(d["label"]),
        None if d.get("channel") is None else str(d["channel"]),
        tuple(shown_value(v) for v in d.get("values", ())),
        tuple(str(p) for p in d.get("processes", ())),
        _cells_of(d.get("writes", {})),
        _cells_of(d["state"]),
        bool(d.get("crash", False)),
        tuple(str(c) for c in d.get("crash_reset", ())),
        d.get("line"),
        bool(d.get("failed", False)),
    )


def _failure_json(f: Failure) -> dict[str, object]:
    out: dict[str, object] = {"kind": f.kind, "message": f.message}
    if f.expression is not None:
        out["expression"] = f.expression
    if f.cells:
        out["cells"] = typed(f.cells)
    if f.waiting:
        out["waiting"] = [
            {
                "process": w.process,
                "offers": list(w.offers),
                "guarded": list(w.guarded),
                "terminated": w.terminated,
            }
            for w in f.waiting
        ]
    for key in ("event", "code", "line", "column", "loop_start"):
        value = getattr(f, key)
        if value is not None:
            out[key] = value
    return out


def _failure_of(d: dict) -> Failure:
    kind = str(d["kind"])
    if kind not in FAILURE_KINDS:
        raise ValueError(f"unknown failure kind {kind!r}")
    waiting = tuple(
        Waiting(
            str(w["process"]),
            tuple(w.get("offers", ())),
            tuple(w.get("guarded", ())),
            bool(w.get("terminated", False)),
        )
        for w in d.get("waiting", ())
    )
    return Failure(
        kind,
        str(d["message"]),
        d.get("expression"),
        _cells_of(d.get("cells", {})),
        waiting,
        d.get("event"),
        d.get("code"),
        d.get("line"),
        d.get("column"),
        d.get("loop_start"),
    )
