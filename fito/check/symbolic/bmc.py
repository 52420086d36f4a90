"""Bounded model checking: the transition relation unrolled one step at a time, asked at
each depth what a breadth-first search would find at that level, in its order (so the first
answer is a shortest run, and a model error beats a goal of the same length)."""

from __future__ import annotations

from dataclasses import dataclass

import z3

from fito.check.symbolic.system import System


@dataclass(frozen=True, slots=True)
class Run:
    """A run the solver found: the states (store values and control number) in order."""

    states: tuple[tuple[tuple[int, ...], int], ...]


class Unrolling:
    """s_0 --T--> s_1 ... --T--> s_d in one incremental solver."""

    def __init__(self, system: System, timeout: float | None = None) -> None:
        self.system = system
        self.solver = z3.Solver()
        if timeout is not None:
            self.solver.set("timeout", max(1, int(timeout * 1000)))
        self.frames: list[tuple[tuple[z3.ArithRef, ...], z3.ArithRef]] = []
        self._frame()
        self.solver.add(self.at(system.init, 0))

    @property
    def depth(self) -> int:
        return len(self.frames) - 1

    def _frame(self) -> None:
        j = len(self.frames)
        xs = tuple(z3.Int(f"x{i}@{j}") for i in range(self.system.K))
        self.frames.append((xs, z3.Int(f"pc@{j}")))
        self.solver.add(self.at(self.system.domain, j))

    def at(self, f: z3.ExprRef, j: int) -> z3.ExprRef:
        """A formula over the current variables, at step j."""
        xs, pc = self.frames[j]
        return z3.substitute(f, *zip(self.system.x, xs), (self.system.pc, pc))

    def step_formula(self, f: z3.ExprRef, j: int) -> z3.ExprRef:
        """A formula over the current and next variables, from step j to j + 1."""
        xs, pc = self.frames[j]
        ys, pc1 = self.frames[j + 1]
        s = self.system
        return z3.substitute(f, *zip(s.x, xs), (s.pc, pc), *zip(s.x1, ys), (s.pc1, pc1))

    def extend(self) -> None:
        """One more step of the transition relation."""
        self._frame()
        self.solver.add(self.step_formula(self.system.trans, self.depth - 1))

    def probe(self, *conditions: z3.ExprRef) -> Run | None:
        """A run to the current depth on which the conditions hold, or None (unsat);
        z3.Z3Exception-free: `unknown` raises Undecided."""
        got = self.solver.check(*conditions)
        if got == z3.unsat:
            return None
        if got != z3.sat:
            raise Undecided(self.solver.reason_unknown())
        m = self.solver.model()
        states = []
        for xs, pc in self.frames:
            store = tuple(m.eval(x, model_completion=True).as_long() for x in xs)
            states.append((store, m.eval(pc, model_completion=True).as_long()))
        return Run(tuple(states))


class Undecided(Exception):
    """The solver answered unknown (a timeout, or nonlinear arithmetic): why, as text."""
