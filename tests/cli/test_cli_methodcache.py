"""fito.methodcache: dataclasses' generated methods come from the table exactly as compiled."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fito import methodcache

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")


def _point() -> type:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Point:
        x: int
        y: str = "b"
        z: tuple[int, ...] = dataclasses.field(default=(), compare=False, repr=False)

    return Point


@pytest.fixture
def table(tmp_path: Path):
    path = tmp_path / "cache" / "methods.marshal"
    methodcache.install(path)
    try:
        yield path
    finally:
        methodcache.uninstall()


def _codes(cls: type) -> dict[str, object]:
    return {m: getattr(cls, m).__code__ for m in METHODS}


def _behaviour(cls: type) -> tuple[object, ...]:
    a, b = cls(1, "a", (1,)), cls(1, "a", (2,))
    try:
        a.x = 2
        frozen = False
    except dataclasses.FrozenInstanceError:
        frozen = True
    return repr(a), a == b, hash(a) == hash(b), a == cls(2), frozen


def test_methods_from_the_table_are_the_compiled_ones(table: Path) -> None:
    cached = _point()
    methodcache.uninstall()
    fresh = _point()
    assert _codes(cached) == _codes(fresh)
    expected = ("_point.<locals>.Point(x=1, y='a')", True, True, False, True)
    assert _behaviour(cached) == _behaviour(fresh) == expected
    stored = methodcache.load(table)
    assert stored, "the table was written back at uninstall"
    for text, code in stored.items():
        assert code == compile(text, "<string>", "exec", dont_inherit=True)
    methodcache.install(table)  # the fixture uninstalls it


def test_a_second_run_compiles_nothing_new(table: Path) -> None:
    first = _codes(_point())
    methodcache.uninstall()
    methodcache.install(table)
    (current,) = methodcache._installed
    assert current.code, "loaded from the file"
    second = _codes(_point())
    assert current.added == 0
    assert first == second


@pytest.mark.parametrize("content", [b"", b"\x00garbage", b"\xe3" * 40])
def test_a_broken_table_is_ignored(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "methods.marshal"
    path.write_bytes(content)
    assert methodcache.load(path) == {}
    methodcache.install(path)
    try:
        cls = _point()
    finally:
        methodcache.uninstall()
    assert _behaviour(cls)[0] == "_point.<locals>.Point(x=1, y='a')"
    assert methodcache.load(path), "rewritten with the texts of this run"


def test_not_a_table_is_ignored(tmp_path: Path) -> None:
    import marshal

    path = tmp_path / "methods.marshal"
    path.write_bytes(marshal.dumps({"def f(): pass": 3}))
    assert methodcache.load(path) == {}


def test_the_command_line_writes_the_table_and_library_use_does_not(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    spec = tmp_path / "t.fito"
    spec.write_text("channel a\nprocess P = a -> P\nsystem P\nassert :[deadlock free]\n")
    subprocess.run([sys.executable, "-c", "import fito.pipeline"], cwd=ROOT, env=env, check=True)
    assert not (tmp_path / "fito").exists()
    runs = [
        subprocess.run(
            [sys.executable, "-m", "fito", "check", str(spec)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0]
    assert runs[0].stdout.split("(")[0] == runs[1].stdout.split("(")[0]
    (path,) = (tmp_path / "fito").iterdir()
    assert methodcache.load(path)
