"""The README's examples run as written and show their real output: each `$ fito ...` of a
console block prints what the block shows (timings aside), and each `fito ...` command in
the text runs without a usage error or a traceback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CONSOLE = re.compile(r"```console\n(.*?)```", re.S)
INLINE = re.compile(r"`(fito [^`]+)`")
SECONDS = re.compile(r"\d+\.\d\d s\)")
# run elsewhere: the proofs by .ci/run (minutes), the server by tests/lsp; inspect needs a
# checkpoint directory (docs/runtime.md makes one)
ELSEWHERE = ("fito prove", "fito recheck", "fito lsp", "fito inspect")


def run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    args: list[str] = []
    for a in command.split()[1:]:  # as a shell would expand a glob
        args.extend(sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(a)) if "*" in a else [a])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's fito, wherever cwd is
    return subprocess.run(
        [sys.executable, "-m", "fito", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        env=env,
    )


def console_examples() -> list[tuple[str, str]]:
    out = []
    for block in CONSOLE.findall(README):
        command, *shown = block.rstrip("\n").split("\n")
        out.append((command.removeprefix("$ "), "\n".join(shown)))
    return out


@pytest.mark.parametrize("command, shown", console_examples())
def test_console_examples_print_what_the_readme_shows(command: str, shown: str) -> None:
    proc = run(command, ROOT)
    assert "Traceback" not in proc.stderr
    assert SECONDS.sub("s)", proc.stdout.rstrip("\n")) == SECONDS.sub("s)", shown)


def test_every_command_in_the_text_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fito.cli.main import main

    for name in ("specs", "models", "proofs", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)  # files the examples write land here
    commands = [" ".join(c.split()) for c in INLINE.findall(README)]
    ran = [c for c in commands if not c.startswith(ELSEWHERE)]
    assert len(ran) >= 8
    for command in ran:
        args: list[str] = []
        for a in command.split()[1:]:  # as a shell would expand a glob
            args.extend(sorted(str(p) for p in Path().glob(a)) if "*" in a else [a])
        status = main(args)
        err = capsys.readouterr().err
        assert status in (0, 1) and "C001" not in err, (command, err[-500:])


def test_the_first_two_commands_are_kept() -> None:
    assert README.split("\n```\n", 1)[1].startswith(
        "pip install -e . && fito check --expect specs/*.fito\n"
        "pip install -e '.[test]' && python -m pytest -q\n"
    )
