"""docs/api.md: its examples run, it names every public name, and every public name exists.

The public surfaces are the `__all__` of fito, fito.runtime, fito.proof (with fito.proof.kernel)
and fito.lint; each example (a ```python block) runs in a fresh interpreter from the
repository root, as a reader would paste it.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "api.md"
SURFACES = ("fito", "fito.runtime", "fito.proof", "fito.proof.kernel", "fito.lint")


def examples() -> list[str]:
    """The ```python blocks of docs/api.md, in page order."""
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)


def test_the_page_has_an_example_per_surface() -> None:
    shown = "\n".join(examples())
    for surface in ("fito", "fito.runtime", "fito.proof", "fito.lint", "fito.models"):
        assert re.search(rf"^(import|from) {re.escape(surface)}\b", shown, re.M), surface


@pytest.mark.parametrize("index", range(len(examples())))
def test_each_example_runs(index: int) -> None:
    code = examples()[index]
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"{code}\n{proc.stderr}"


@pytest.mark.parametrize("surface", SURFACES)
def test_every_public_name_resolves(surface: str) -> None:
    module = importlib.import_module(surface)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []
    assert sorted(module.__all__) == sorted(set(module.__all__)), "a name listed twice"


@pytest.mark.parametrize("surface", SURFACES)
def test_the_page_names_every_public_name(surface: str) -> None:
    text = PAGE.read_text(encoding="utf-8")
    module = importlib.import_module(surface)
    unnamed = [n for n in module.__all__ if not re.search(rf"`{re.escape(n)}\b", text)]
    assert unnamed == [], f"docs/api.md does not name {surface}.{unnamed}"


def test_every_dotted_name_on_the_page_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for dotted in sorted(set(re.findall(r"`(fito(?:\.\w+)+)", text))):
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            break
        for attr in parts[cut:]:
            assert hasattr(obj, attr), dotted
            obj = getattr(obj, attr)
