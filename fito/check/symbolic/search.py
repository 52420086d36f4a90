"""`--engine symbolic` for the safety questions of one process: BMC for the shortest run to a
goal, a deadlock or a model error, in breadth-first order, and k-induction and Spacer for
the proof that none exists. Runs the solver finds are replayed on the compiled model, so a
counterexample is an ordinary run of states and transition ranks (its trace, labels and
renderings are the explicit engine's)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import z3

from fito.check.explore import (
    DEADLOCK,
    ERROR,
    EXHAUSTED,
    GOAL,
    LIMIT,
    Decided,
    Found,
    Graph,
    Task,
    stop_reason,
)
from fito.check.options import Limits
from fito.check.refused import Refused
from fito.check.symbolic.bmc import Run, Undecided, Unrolling
from fito.check.symbolic.certificate import certificate
from fito.check.symbolic.encode import Unsupported
from fito.check.symbolic.linear import NotLinear
from fito.check.symbolic.prove import Proof, Reachable, k_induction, spacer
from fito.check.symbolic.skeleton import control_skeleton
from fito.check.symbolic.spec_syntax import show, slot_names
from fito.check.symbolic.system import System
from fito.semantics.compiled import Compiled, Fault, StepFault

ENGINE = "symbolic"
FIRST_PROOF_AT = 3  # BMC depth before the first proof attempt
DEFAULT_TIMEOUT = 60.0  # seconds, without --timeout
MAX_INDUCTION = 12  # the deepest k-induction tried
SPACER_FIRST = 4.0  # seconds of Spacer's first try; each later try has four times more


@dataclass(slots=True)
class _Task:
    task: Task
    bad: z3.BoolRef  # states whose reachability decides the task (errors included)
    goal: z3.BoolRef | None
    goal_fault: z3.BoolRef | None
    reachable: bool = False  # Spacer found bad reachable: only BMC can still answer
    tried: str = ""  # what Spacer answered last ("" before it ran)
    induction: str = ""  # what k-induction answered last
    spacer_seconds: float = SPACER_FIRST  # Spacer's time at its next try
    spacer_closed: bool = False  # Spacer answered for good (nonlinear: never runs)


class SymbolicSearch:
    """One search answering the tasks of one process."""

    def __init__(self, c: Compiled, root: tuple[int, ...], tasks: list[Task], limits: Limits):
        self.c = c
        self.root = root
        self.tasks = tasks
        self.limits = limits
        self.start = time.perf_counter()
        self.deadline = time.monotonic() + (limits.timeout or DEFAULT_TIMEOUT)
        self.got: list[Decided | None] = [None] * len(tasks)
        self.depth = 0

    # ------------------------------------------------------------------ answers
    def _decide(self, i: int, found: Found, graph: Graph, proof: Proof | None = None) -> None:
        seconds = time.perf_counter() - self.start
        states = len(graph)
        self.got[i] = Decided(found, graph, states, 0, self.depth, seconds, proof)

    def _open(self) -> list[int]:
        return [i for i, d in enumerate(self.got) if d is None]

    def _close(self, reason: str) -> list[Decided]:
        for i in self._open():
            why = f"{reason}; {self._why(i)}" if hasattr(self, "items") else reason
            self._decide(i, Found(LIMIT, reason=why), self._graph(None))
        return self.got  # type: ignore[return-value]

    def _graph(self, run: Run | None, upto: int | None = None) -> Graph:
        """The run replayed on the compiled model: the states, linked by the ranks taken."""
        g = Graph(engine=ENGINE)
        g.add(self.root, -1, -1)
        if run is None:
            return g
        controls = self.skeleton.controls
        states = [store + controls[pc] for store, pc in run.states]
        if states[0] != self.root:
            raise Mismatch("the solver's initial state is not the model's")
        for j in range(1, len(states) if upto is None else upto + 1):
            rank = next(
                (r for r, post in self.c.successors(states[j - 1]) if post == states[j]), None
            )
            if rank is None:
                raise Mismatch(f"step {j} of the solver's run is no transition of the model")
            g.add(states[j], j - 1, rank)
        g.depth = len(g) - 1
        return g

    # ------------------------------------------------------------------ the search
    def run(self) -> list[Decided]:
        try:
            self.skeleton = control_skeleton(self.c, self.root, self._skeleton_deadline())
            self.system = System(self.c, self.skeleton)
            self.items = [self._item(t) for t in self.tasks]
        except Unsupported as exc:
            raise Refused(str(exc)) from None
        self._root()
        try:
            return self._levels()
        except Undecided as exc:
            if time.monotonic() > self.deadline:
                return self._close(f"timeout after {self.limits.timeout or DEFAULT_TIMEOUT:g} s")
            return self._close(f"the solver answered unknown: {exc}")
        except Mismatch as exc:
            return self._close(f"internal: {exc}")

    def _item(self, t: Task) -> _Task:
        s = self.system
        if t.deadlock:
            return _Task(t, z3.Or(s.error, s.deadlock), None, None)
        goal = s.goal(t.ir, t.negate)  # type: ignore[arg-type]
        fault = goal.fault if goal.fault is not None else z3.BoolVal(False)
        bad = z3.Or(s.error, goal.term, fault)
        return _Task(t, bad, goal.term, fault)

    def _root(self) -> None:
        for i, t in enumerate(self.tasks):
            if t.goal is None:
                continue
            try:
                if t.goal(self.root):
                    self._decide(i, Found(GOAL, 0), self._graph(None))
            except Fault as f:
                self._decide(i, Found(ERROR, 0, None, f), self._graph(None))

    def _levels(self) -> list[Decided]:
        """Level by level, as the breadth-first search decides: at depth d, a guard's model
        error or a deadlock (runs of d steps), then an effect's model error, a property's
        error or a goal (runs of d + 1 steps); proofs tried as the depth grows."""
        u = Unrolling(self.system)
        next_proof = FIRST_PROOF_AT
        while self._open():
            if time.monotonic() > self.deadline:
                return self._close(f"timeout after {self.limits.timeout or DEFAULT_TIMEOUT:g} s")
            stop = stop_reason(None, self.limits)  # --max-memory (fito.budget)
            if stop is not None:
                return self._close(stop)
            u.solver.set("timeout", self._left_ms())
            if self._ends_here(u):
                break
            u.extend()
            self.depth = u.depth
            self._goals(u)
            if u.depth >= next_proof:
                self._prove(u.depth)
                next_proof = u.depth + max(1, u.depth // 2)
        return self.got  # type: ignore[return-value]

    def _ends_here(self, u: Unrolling) -> bool:
        """Decide what a state at the current depth ends: a model error ends every task
        (True: nothing is left), a deadlock the deadlock tasks."""
        s, d = self.system, u.depth
        run = u.probe(u.at(s.guard_error, d))
        if run is not None:
            g = self._graph(run)
            fault = self._fault(g.states[-1])
            for i in self._open():
                self._decide(i, Found(ERROR, len(g) - 1, None, fault.fault), g)
            return True
        for i in self._open():
            if self.tasks[i].deadlock:
                run = u.probe(u.at(s.deadlock, d))
                if run is not None:
                    g = self._graph(run)
                    self._decide(i, Found(DEADLOCK, len(g) - 1), g)
        if not self._open():
            return True
        run = u.probe(u.at(s.error, d))  # no guard fails here: an effect's error
        if run is None:
            return False
        g = self._graph(run)
        fault = self._fault(g.states[-1])
        for i in self._open():
            self._decide(i, Found(ERROR, len(g) - 1, fault.step, fault.fault), g)  # type: ignore[arg-type]
        return True

    def _goals(self, u: Unrolling) -> None:
        """Decide the goal tasks a state at the new depth answers: the property's own model
        error first, then the goal."""
        for i in self._open():
            item = self.items[i]
            if item.goal is None:
                continue
            run = None
            if item.goal_fault is not None:
                run = u.probe(u.at(item.goal_fault, u.depth))
            if run is not None:
                g = self._graph(run)
                try:
                    self.tasks[i].goal(g.states[-1])  # type: ignore[misc]
                except Fault as f:
                    self._decide(i, Found(ERROR, len(g) - 1, None, f), g)
                    continue
                raise Mismatch("the property does not fail where the solver says")
            run = u.probe(u.at(item.goal, u.depth))
            if run is not None:
                g = self._graph(run)
                self._decide(i, Found(GOAL, len(g) - 1), g)

    def _why(self, i: int) -> str:
        """What was shown and tried for an open task: the BMC depth, Spacer, k-induction."""
        item = self.items[i]
        parts = [f"no run to a bad state of up to {self.depth} steps"]
        if item.reachable:
            parts.append("Spacer finds one reachable, longer than BMC got to")
        elif item.tried:
            parts.append(f"Spacer: {item.tried}")
        if item.induction:
            parts.append(f"k-induction: {item.induction}")
        return "; ".join(parts)

    def _fault(self, state: tuple) -> StepFault:
        try:
            self.c.successors(state)
        except StepFault as e:
            return e
        raise Mismatch("no model error where the solver finds one")

    def _skeleton_deadline(self) -> float:
        """A tenth of the time for the control skeleton (at least a second)."""
        return time.monotonic() + max(1.0, self._left() / 10)

    def _left(self) -> float:
        return max(0.001, self.deadline - time.monotonic())

    def _left_ms(self) -> int:
        return max(1, int(self._left() * 1000))

    def _prove(self, depth: int) -> None:
        """Try to close the open tasks: Spacer (each try with more time, at most a third of
        what is left, so BMC goes on meanwhile), then k-induction at `depth` (BMC has shown
        no bad run up to there, the base case)."""
        for i in self._open():
            item = self.items[i]
            if item.reachable:
                continue
            proof = self._spacer(item)
            if item.reachable:
                continue
            if proof is None and depth <= MAX_INDUCTION:
                got = k_induction(self.system, item.bad, depth, min(self._left() / 4, 5.0))
                if isinstance(got, Proof):
                    proof = got
                else:
                    item.induction = got
            if proof is not None:
                self._decide(i, Found(EXHAUSTED), self._graph(None), self._certified(proof, item))

    def _spacer(self, item: _Task) -> Proof | None:
        """One try of Spacer for a task, if it may still answer."""
        if item.spacer_closed:
            return None
        nonlinear = self.system.nonlinear(item.bad)
        if nonlinear is not None:  # Spacer's arithmetic is linear (it may abort)
            item.tried = f"not run: nonlinear arithmetic ({show(nonlinear, slot_names(self.c))})"
            item.spacer_closed = True
            return None
        seconds = min(self._left() / 3, item.spacer_seconds)
        got = spacer(self.system, item.bad, seconds)
        item.spacer_seconds *= 4
        if isinstance(got, Proof):
            return got
        if isinstance(got, Reachable):
            item.reachable = True
            return None
        item.tried = f"no answer within {seconds:.1f} s" if "canceled" in got else got
        return None

    def _certified(self, proof: Proof, item: _Task) -> Proof:
        """The proof with its certificate and the kernel's answer (a 1-inductive invariant;
        k-induction for k > 1 has none)."""
        proof = replace(proof, controls=self.skeleton.controls)
        if proof.k > 1:
            return replace(proof, kernel="no certificate (k-induction for k > 1)")
        try:
            cert, result = certificate(self.system, proof, item.bad, "an inductive invariant")
        except NotLinear as exc:
            return replace(proof, kernel=f"no certificate: {exc}")
        if not result.accepted:
            return replace(proof, kernel=f"the kernel rejected the certificate: {result.reason}")
        kinds = [ob["kind"] for ob in cert["obligations"]]
        trusted = kinds.count("trusted")
        text = (
            f"{len(kinds)} obligations checked by the kernel, {len(kinds) - trusted} by "
            "Farkas multipliers"
        )
        text += f", {trusted} on Z3's word ({', '.join(result.trusted)})" if trusted else ""
        text += "; trust tags: " + (", ".join(result.trusted) or "none")
        return replace(proof, certificate=cert, kernel=text)


class Mismatch(Exception):
    """A run of the solver that the compiled model does not take (an encoding bug)."""


def symbolic_search(
    c: Compiled, root: tuple[int, ...], tasks: list[Task], limits: Limits
) -> list[Decided]:
    """The answer of each task, as the breadth-first engine would give it."""
    return SymbolicSearch(c, root, tasks, limits).run()
