"""`fito lint DIR` reads a project as a whole: calls into other modules of the tree run the
functions they name (relative and absolute imports, re-exports, classes), each module is
parsed once, cycles and depth are bounded, and nothing outside the tree is read."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fito.lint.run import LintOptions, lint_paths

SAVE_HELPER = """import torch


def save_checkpoint(obj, path):
    torch.save(obj, path)
"""
TRAIN = """import torch

{imp}


def train(model, optimizer):
    {call}({{"model": model.state_dict()}}, "ckpt/model.pt")
    {call}({{"optimizer": optimizer.state_dict()}}, "ckpt/optimizer.pt")
"""


def codes(tmp: Path, *paths: str) -> dict[str, list[tuple[int, str]]]:
    reports = lint_paths([str(tmp / p) for p in paths] or [str(tmp)], LintOptions())
    return {
        Path(r.report.path).relative_to(tmp).as_posix(): sorted(
            (d.span.line, d.code) for d in r.report.diagnostics
        )
        for r in reports
    }


def write(tmp: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(text, encoding="utf-8")


def test_a_helper_of_another_module_counts_as_its_saves_at_the_calls(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "utils.py": SAVE_HELPER,
            "train.py": TRAIN.format(imp="import utils", call="utils.save_checkpoint"),
        },
    )
    got = codes(tmp_path)
    # the split, at the first call; each call writes in place onto a fixed name
    assert got["train.py"] == [(7, "FITOL001"), (7, "FITOL003"), (8, "FITOL003")]
    assert got["utils.py"] == []  # alone, `obj` and `path` are unknown: nothing to say


def test_relative_imports_packages_and_re_exports(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from .io import save_checkpoint\n",
            "pkg/io.py": SAVE_HELPER,
            "pkg/train.py": TRAIN.format(
                imp="from . import save_checkpoint", call="save_checkpoint"
            ),
            "run.py": TRAIN.format(imp="from pkg.io import save_checkpoint as sc", call="sc"),
        },
    )
    got = codes(tmp_path)
    assert got["pkg/train.py"] == [(7, "FITOL001"), (7, "FITOL003"), (8, "FITOL003")]
    assert got["run.py"] == [(7, "FITOL001"), (7, "FITOL003"), (8, "FITOL003")]


def test_a_class_of_another_module(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "ckpt.py": """import torch


class Checkpointer:
    def __init__(self, folder):
        self.folder = folder

    def save(self, model, optimizer):
        torch.save(model.state_dict(), self.folder + "/model.pt")
        torch.save(optimizer.state_dict(), self.folder + "/optimizer.pt")
""",
            "train.py": """import torch

from ckpt import Checkpointer


class Trainer:
    def __init__(self, folder):
        self.checkpointer = Checkpointer(folder)

    def fit(self, model, optimizer):
        optimizer.step()
        self.checkpointer.save(model, optimizer)
""",
        },
    )
    got = codes(tmp_path)
    assert (12, "FITOL001") in got["train.py"]


def test_each_module_is_parsed_once_and_cycles_end(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write(
        tmp_path,
        {
            "a.py": "import torch\nimport b\n\n\ndef f(x, p):\n    b.g(x, p)\n",
            "b.py": "import torch\nimport a\n\n\ndef g(x, p):\n    a.f(x, p)\n"
            "    torch.save(x, p)\n",
            "t1.py": TRAIN.format(imp="import a", call="a.f"),
            "t2.py": TRAIN.format(imp="import a", call="a.f"),
        },
    )
    parsed: list[str] = []
    real_parse = ast.parse

    def counting_parse(source, filename="<unknown>", *args, **kwargs):  # type: ignore[no-untyped-def]
        parsed.append(Path(filename).name)
        return real_parse(source, filename, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting_parse)
    got = codes(tmp_path)
    assert sorted(parsed) == ["a.py", "b.py", "t1.py", "t2.py"]  # each once, callee or not
    assert got["t1.py"] == got["t2.py"] == [(7, "FITOL001"), (7, "FITOL003"), (8, "FITOL003")]


def test_nothing_outside_the_tree_and_unresolvable_names_are_left_alone(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "train.py": TRAIN.format(
                imp="from somewhere_else import save_checkpoint", call="save_checkpoint"
            )
        },
    )
    assert codes(tmp_path)["train.py"] == []


def test_a_large_function_of_another_module_is_linted_in_its_own_file(tmp_path: Path) -> None:
    from fito.lint.project import MAX_HELPER_STATEMENTS

    def helper(n: int) -> str:
        filler = "".join(f"    x{i} = {i}\n" for i in range(n))
        return f"import torch\n\n\ndef save_model(model):\n{filler}" + (
            '    torch.save(model.state_dict(), "ckpt/model.pt")\n'
        )

    train = "import utils\n\n\ndef train(model):\n    utils.save_model(model)\n"
    write(tmp_path, {"utils.py": helper(3), "train.py": "import torch\n" + train})
    small = codes(tmp_path)  # a helper: its save is the call's, reported in train.py
    assert small == {"train.py": [(6, "FITOL003")], "utils.py": []}
    write(tmp_path, {"utils.py": helper(MAX_HELPER_STATEMENTS)})
    large = codes(tmp_path)  # a framework's function: linted where it is defined
    assert large == {"train.py": [], "utils.py": [(MAX_HELPER_STATEMENTS + 5, "FITOL003")]}


def test_a_future_kept_by_a_checkpointer_of_another_module_is_its_to_wait(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "ckpt.py": """import torch.distributed.checkpoint as dcp


class Saver:
    def __init__(self):
        self.future = None

    def save(self, state, path):
        if self.future is not None:
            self.future.result()
        self.future = dcp.async_save(state, checkpoint_id=path)

    def close(self):
        if self.future is not None:
            self.future.result()
""",
            "train.py": """import torch

from ckpt import Saver


def train(model, steps):
    saver = Saver()
    for step in range(steps):
        saver.save({"model": model.state_dict()}, f"ckpt/{step}")
""",
        },
    )
    assert codes(tmp_path) == {"ckpt.py": [], "train.py": []}


def test_two_modules_calling_only_each_other_are_still_linted(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/one.py": "import torch\nfrom . import two\n\n\ndef a(m):\n    two.b(m)\n",
            "pkg/two.py": "import torch\nfrom . import one\n\n\ndef b(m):\n    one.a(m)\n"
            '    torch.save(m.state_dict(), "ckpt/model.pt")\n',
        },
    )
    got = codes(tmp_path)
    assert got["pkg/two.py"] == [(7, "FITOL003")] or got["pkg/one.py"] == [(6, "FITOL003")]
