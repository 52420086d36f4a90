"""The labelled transition system of a (small) process: every state and every transition
(`fito lts`, and `fito.pipeline.state_graph` for engines outside the checker)."""

from __future__ import annotations

from dataclasses import dataclass

from fito import budget
from fito.errors import FitoError
from fito.semantics.compiled import Compiled, StepFault


@dataclass(frozen=True, slots=True)
class LTS:
    states: tuple[tuple, ...]  # flat states: cells, then control
    edges: tuple[tuple[int, str, int], ...]  # (source, label, target)
    errors: tuple[tuple[int, str], ...]  # states whose successors raise a model error
    terminated: frozenset[int]
    deadlocked: frozenset[int]


class TooLarge(FitoError):
    """More states than the export limit."""


def build_lts(c: Compiled, root: tuple, limit: int) -> LTS:
    """Breadth-first, all transitions; raises TooLarge past `limit` states."""
    index = {root: 0}
    states = [root]
    edges: list[tuple[int, str, int]] = []
    errors: list[tuple[int, str]] = []
    deadlocked, terminated = set(), set()
    i = 0
    while i < len(states):
        try:
            budget.check()
        except budget.BudgetExceeded as exc:  # --timeout, --max-memory: with the figures
            raise budget.BudgetExceeded(
                exc.reason,
                f"{exc.message} after {len(states):,} states, {len(edges):,} transitions",
            ) from None
        here = states[i]
        try:
            moves = c.successors(here)
        except StepFault as e:
            errors.append((i, c.error_site(e.fault)[1]))
            i += 1
            continue
        if not moves:
            (terminated if c.ends_validly(here) else deadlocked).add(i)
        for rank, post in moves:
            j = index.get(post)
            if j is None:
                if len(states) >= limit:
                    raise TooLarge()
                j = index[post] = len(states)
                states.append(post)
            edges.append((i, c.label(here, rank), j))
        i += 1
    return LTS(
        tuple(states), tuple(edges), tuple(errors), frozenset(terminated), frozenset(deadlocked)
    )


def to_dot(c: Compiled, lts: LTS, name: str) -> str:
    """Graphviz text: states show their cells; deadlocks red, termination double circles."""
    out = [
        f"digraph {_quote(name)} {{",
        "  rankdir=LR;",
        "  node [shape=circle, fontsize=10];",
        "  start [shape=point];",
        "  start -> s0;",
    ]
    errors = dict(lts.errors)
    for i, state in enumerate(lts.states):
        shown = c.show(state)
        label = f"{i}\\n" + shown.replace(", ", "\\n") if shown else str(i)
        attrs = [f"label={_quote(label)}"]
        if i in lts.deadlocked:
            attrs.append("color=red")
        if i in lts.terminated:
            attrs.append("shape=doublecircle")
        if i in errors:
            attrs += ["color=orange", f"tooltip={_quote(errors[i])}"]
        out.append(f"  s{i} [{', '.join(attrs)}];")
    loops: dict[int, list[str]] = {}  # Graphviz draws a state's loops over each other:
    edges: list[tuple[int, str, int] | int] = []  # one loop per state, a line per event
    for a, label, b in lts.edges:
        if a != b:
            edges.append((a, label, b))
        elif a not in loops:
            loops[a] = [label]
            edges.append(a)
        else:
            loops[a].append(label)
    for e in edges:
        if isinstance(e, int):
            label = _quote("\\n".join(loops[e]))  # dot's own line break
            out.append(f"  s{e} -> s{e} [label={label}];")
        else:
            out.append(f"  s{e[0]} -> s{e[2]} [label={_quote(e[1])}];")
    out.append("}")
    return "\n".join(out)


def to_json(c: Compiled, lts: LTS) -> dict[str, object]:
    return {
        "states": [
            {
                "id": i,
                "cells": {n: t.show(v) for n, t, v in zip(c.layout.names, c.layout.types, state)},
                "deadlock": i in lts.deadlocked,
                "terminated": i in lts.terminated,
            }
            for i, state in enumerate(lts.states)
        ],
        "transitions": [{"from": a, "label": label, "to": b} for a, label, b in lts.edges],
        "initial": 0,
    }


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\\\\n", "\\n") + '"'
