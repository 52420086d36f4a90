"""Cross-checking a derived return map against the exact simulator at a section state."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from fito.models.fleet.expr import Number
from fito.models.fleet.linear import evaluate
from fito.models.fleet.oscillators import Fleet
from fito.models.fleet.returnmap import COMPUTE, Derivation
from fito.models.fleet.sim import simulate


@dataclass(frozen=True, slots=True)
class SectionRun:
    """What the simulator did from a section state: the next state and the firing times."""

    next_state: tuple[Number, ...]
    fire_times: tuple[tuple[int, Number], ...]
    period: Number


def section_phases(
    fleet: Fleet, modes: Sequence[str], x: Sequence[Fraction]
) -> tuple[Fraction, ...]:
    """Positions with job 0 just fired and job j >= 1 holding remaining amount x_j."""
    out = [fleet.work[0]]
    for j, (mode, q) in enumerate(zip(modes[1:], x), start=1):
        w, v = fleet.work[j], fleet.volume[j]
        out.append(w - q if mode == COMPUTE else w + v - q)
    return tuple(out)


def run_from_section(fleet: Fleet, modes: Sequence[str], x: Sequence[Fraction]) -> SectionRun:
    """One cycle of the exact simulator, from job 0's firing to its next one."""
    start = replace(fleet, phases=section_phases(fleet, modes, x))
    run = simulate(start, cycles=2, exact=True, record_sections=True)
    period, positions = run.sections[0]
    state = []
    for j in range(1, fleet.jobs):
        p, w, v = positions[j], fleet.work[j], fleet.volume[j]
        state.append(w - p if p < w else w + v - p)
    fires = sorted((t, j) for j in range(1, fleet.jobs) for t in run.firings[j] if t < period)
    return SectionRun(tuple(state), tuple((j, t) for t, j in fires), period)


def agrees(der: Derivation, fleet: Fleet, x: Sequence[Fraction]) -> tuple[bool, str]:
    """Whether the derivation's next state, firing times and period match the simulator at x."""
    K = der.K
    sim = run_from_section(fleet, der.branch.modes, x)
    predicted_state = tuple(evaluate(form, x, K) for form in der.next_state)
    predicted_fires = tuple((j, evaluate(t, x, K)) for j, t in der.fire_times)
    predicted_period = evaluate(der.period, x, K)
    if predicted_state != sim.next_state:
        return False, (
            f"next state: derived {_show(predicted_state)}, simulated {_show(sim.next_state)}"
        )
    if predicted_fires != sim.fire_times:
        return False, f"firings: derived {predicted_fires}, simulated {sim.fire_times}"
    if predicted_period != sim.period:
        return False, f"period: derived {predicted_period}, simulated {sim.period}"
    return True, "the exact simulator agrees (next state, firing times, period)"


def _show(values: Sequence[Any]) -> str:
    return "(" + ", ".join(str(v) for v in values) + ")"
