"""`fito lts`: the exported graph has every reachable state and transition, or a refusal."""

from __future__ import annotations

import json

from tests.helpers.check import cli


def test_dot_export_lists_every_state_and_edge(spec_file) -> None:  # type: ignore[no-untyped-def]
    path = spec_file(
        "channel a, b\ndomain x: 0..2 = 0 volatile\n"
        "process P = x < 2 & a {x := x + 1} -> P [] b -> STOP\nsystem P\n"
    )
    proc = cli("lts", path, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    graph = json.loads(proc.stdout)
    # states: (P, x) for x = 0, 1, 2 and (STOP, x) for x = 0, 1, 2
    assert len(graph["states"]) == 6
    assert sorted(t["label"] for t in graph["transitions"]) == ["a", "a", "b", "b", "b"]
    assert sum(s["deadlock"] for s in graph["states"]) == 3
    dot = cli("lts", path)
    assert dot.returncode == 0 and dot.stdout.startswith('digraph "system"')
    assert dot.stdout.count("->") == 5 + 1  # the edges and the start arrow


def test_export_refuses_large_graphs(spec_file) -> None:  # type: ignore[no-untyped-def]
    path = spec_file(
        "channel a\ndomain x: 0..100 = 0 volatile\nprocess P = x < 100 & a {x := x + 1} -> P\n"
        "system P\n"
    )
    proc = cli("lts", path, "--max-states", "10")
    assert proc.returncode == 3
    assert "M004" in proc.stderr
