"""Generated successor code can be debugged (fito/semantics/codegen/loader.py): each unit has
a name of its own, its text reaches `linecache` (so a traceback shows the generated line),
and `FITO_DUMP_CODE=DIR` writes every unit to DIR as a file that compiles, without changing
a single answer."""

from __future__ import annotations

import linecache
import traceback
from pathlib import Path

import pytest

import fito
from fito.check.options import CheckOptions
from fito.pipeline import front_end
from fito.semantics.codegen import loader
from fito.semantics.compiled import Compiled, StepFault, compile_model

# `b` divides by zero when x == 2 (its second time), and writes cells named in the comments
SPEC = """type Id = {gpu, cpu}
domain has[i: Id][k: 0..1]: Bool = false durable
domain x: 0..3 = 0 volatile
domain y: -9..9 = 1 durable
channel a, b, crash
process P = a {x := x + 1, has[gpu][1] := true}
    -> b {y := 6 / (x - 2), has[cpu][x % 2] := x > 0} -> P
  [] crash -> P
assert P :[deadlock free]
"""

# a frontier search long enough for groups to be vectorised (numpy code)
COUNTERS = """domain a: 0..15 = 0 durable
domain b: 0..15 = 0 durable
domain c: 0..15 = 0 durable
channel inc, dec, turn
process P = inc {a := (a + 1) % 16} -> P [] dec {b := (b + a) % 16} -> P
  [] turn {c := (c + b) % 16, a := c} -> P
system P
assert always not (a == 15 and b == 15 and c == 14)
assert P :[deadlock free]
"""


def compiled(text: str) -> Compiled:
    model = front_end(text).model
    assert model is not None
    return compile_model(model)


def fault_traceback(c: Compiled) -> str:
    """The traceback of the first model error a breadth-first walk of c meets."""
    (assertion,) = c.model.assertions
    assert assertion.proc is not None
    todo, seen = [c.initial(assertion.proc)], set()
    while todo:
        s = todo.pop(0)
        if s in seen:
            continue
        seen.add(s)
        try:
            todo += [t for _, t in c.successors(s)]
        except StepFault:
            return traceback.format_exc()
    raise AssertionError("no model error met")


def answers(text: str, engine: str) -> list[tuple]:
    report = fito.check_text(text, CheckOptions(engine=engine))
    return [(v.line, v.verdict, v.states, v.transitions, v.trace) for v in report.verdicts]


def test_a_model_error_shows_the_generated_line() -> None:
    text = fault_traceback(compiled(SPEC))
    assert "_div(6, (s[" in text  # the line of the generated code that divides
    assert 'File "<fito-group ' in text
    assert "raise StepFault(f, base + k)" in text


def test_writes_are_commented_with_the_cell_they_set() -> None:
    c = compiled(SPEC)
    fault_traceback(c)
    sources = ["".join(lines) for name, (_, _, lines, _) in _units("<fito-group ")]
    text = "\n".join(sources)
    assert "# has[gpu][1] := true" in text
    assert "# write has[cpu][?]" in text
    assert "# write y" in text
    assert "# x := 0 (crash)" in text


def _units(prefix: str) -> list[tuple[str, tuple]]:
    return [(k, v) for k, v in list(linecache.cache.items()) if k.startswith(prefix)]


def test_unit_names_are_unique() -> None:
    before = set(linecache.cache)
    fault_traceback(compiled(SPEC))
    fault_traceback(compiled(SPEC))  # the same groups again: new units, new names
    groups = [k for k in linecache.cache if k not in before and k.startswith("<fito-group ")]
    assert len(groups) >= 4
    numbers = [k.rsplit("#", 1)[1] for k in groups]
    assert len(set(numbers)) == len(numbers)
    one = loader.load("def f(): pass", "fito-test same", {})["f"].__code__.co_filename
    two = loader.load("def f(): pass", "fito-test same", {})["f"].__code__.co_filename
    assert one != two
    assert one.startswith("<fito-test same #") and one.endswith(">")


def test_linecache_keeps_a_bounded_number_of_units(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "MAX_REGISTERED", 3)
    for i in range(5):
        assert loader.load(f"x = {i}\n", "fito-test", {})["x"] == i
    kept = [k for k in linecache.cache if k.startswith("<fito-test ")]
    assert len(kept) <= 3
    assert len(loader._registered) <= 3


@pytest.mark.parametrize("engine", ["scalar", "frontier"])
def test_dump_writes_units_that_compile(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = SPEC if engine == "scalar" else COUNTERS
    plain = answers(spec, engine)
    folder = tmp_path / "code" / "deeper"
    monkeypatch.setenv(loader.DUMP_VARIABLE, str(folder))
    assert answers(spec, engine) == plain
    files = sorted(folder.glob("*.py"))
    assert files
    for f in files:
        compile(f.read_text(), str(f), "exec")
    names = [f.name for f in files]
    assert any(n.startswith("fito-group_") for n in names)
    assert any(n.startswith("fito-entries_mode=") for n in names)
    if engine == "frontier":
        assert any(n.startswith("fito-vector_mode=") for n in names)
    groups = "".join(f.read_text() for f in files if f.name.startswith("fito-group_"))
    assert "def effects(s, g, out, base):" in groups


def test_dumped_code_carries_its_file_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(loader.DUMP_VARIABLE, str(tmp_path))
    text = fault_traceback(compiled(SPEC))
    paths = [p for p in tmp_path.glob("fito-group_*.py") if f'File "{p}"' in text]
    assert paths  # the traceback names the dumped file, which holds the failing line
    assert "_div(6, (s[" in paths[0].read_text()


def test_a_dump_that_cannot_be_written_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    plain = answers(SPEC, "scalar")
    monkeypatch.setenv(loader.DUMP_VARIABLE, str(blocker / "code"))
    assert answers(SPEC, "scalar") == plain
    assert 'File "<fito-group ' in fault_traceback(compiled(SPEC))


def test_dump_file_names_come_from_the_unit() -> None:
    path = loader.dump_path("fito-group mode=3 cand=1", 17, "/d")
    assert path == "/d/fito-group_mode=3_cand=1_17.py"
    assert loader.dump_path("../../etc", 2, "/d") == "/d/etc_2.py"
