"""Regenerate what the docs show of fito's output, so that the pages cannot drift.

    python tests/docs/docs_pages.py            # rewrite the pages in place
    python tests/docs/docs_pages.py --check    # exit 1, with a diff, when a page is stale

What a page marks (docs/tutorial.md, docs/coordination.md, docs/bilateral.md):
- a ```console block: each line `$ COMMAND` is run by bash in a scratch directory that links
  specs/, proofs/ and docs/ of this checkout (`fito` is this checkout's `python -m fito`);
  the lines after it are its output (stdout, then stderr), and `[exit status N]` when N is
  not 0. The commands of one page run in order in one scratch directory.
- `<!-- include: PATH -->` (or `<!-- include: PATH lines A-B -->`) before a fenced block:
  the block holds the file's text (those lines).
- `<!-- table: NAME -->` before a Markdown table: the table `TABLES[NAME]` computes.
tests/docs/test_docs_pages.py compares the pages with a fresh run, ignoring timings (numbers
with two decimals) and runs of blanks.
"""

from __future__ import annotations

import difflib
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("docs/tutorial.md", "docs/coordination.md", "docs/bilateral.md")
LINKED = ("specs", "proofs", "docs")
INCLUDE = re.compile(r"<!-- include: (?P<path>\S+)(?: lines (?P<a>\d+)-(?P<b>\d+))? -->")
TABLE = re.compile(r"<!-- table: (?P<name>[a-z0-9-]+) -->")
TIMING = re.compile(r"\b\d+\.\d\d\b")


def _attack_table() -> list[str]:
    from fito.models.epochs import coordinated_attack as ca

    rows = [
        "| r | runs (silent, chatty) | views | rules examined | rules they stand for "
        "| meeting all three | validity and integrity |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in range(1, 9):
        s, c = ca.census(r, "silent"), ca.census(r, "chatty")
        rows.append(
            f"| {r} | {len(s.runs)}, {len(c.runs)} | {len(s.views)}, {len(c.views)} "
            f"| {s.rules:,}, {c.rules:,} | 2^{ca.conceivable_views(r, 'silent')}, "
            f"2^{ca.conceivable_views(r, 'chatty')} | {s.count(*ca.REQUIREMENTS)}, "
            f"{c.count(*ca.REQUIREMENTS)} | {s.count('validity', 'integrity')}, "
            f"{c.count('validity', 'integrity')} |"
        )
    return rows


def _bilateral_table() -> list[str]:
    from fito.models.epochs import bilateral_count as bc

    rows = [
        "| k | states (bilateral, latest) | interleavings | crash points | crash runs "
        "| mixed crash points (bilateral, latest) | mixed crash runs (bilateral, latest) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for k in range(2, 6):
        b, n = bc.count(k, "bilateral"), bc.count(k, "latest")
        rows.append(
            f"| {k} | {b.states:,}, {n.states:,} | {b.interleavings:,} | {b.crash_points:,} "
            f"| {b.crash_runs:,} | {b.mixed_points:,}, {n.mixed_points:,} "
            f"| {b.mixed_runs:,}, {n.mixed_runs:,} |"
        )
    return rows


TABLES: dict[str, Callable[[], list[str]]] = {
    "coordinated-attack": _attack_table,
    "bilateral-counts": _bilateral_table,
}


def _scratch(tmp: Path) -> dict[str, str]:
    """Link the checkout's folders into tmp; an environment whose `fito` is this checkout's."""
    for name in LINKED:
        (tmp / name).symlink_to(ROOT / name)
    bin_dir = tmp / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "fito"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m fito "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env.pop("FITO_RUNTIME_KILL_AT", None)
    return env


def run_command(command: str, cwd: Path, env: dict[str, str]) -> list[str]:
    """Run one `$ ` line; its output lines and, if it failed, its exit status."""
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    lines = (done.stdout + done.stderr).rstrip("\n").splitlines()
    code = done.returncode
    if code < 0 or code > 128:
        number = -code if code < 0 else code - 128
        lines.append(f"[killed by {signal.Signals(number).name}]")
    elif code:
        lines.append(f"[exit status {code}]")
    return lines


def _console(block: list[str], cwd: Path, env: dict[str, str]) -> list[str]:
    out: list[str] = []
    for line in block:
        if line.startswith("$ "):
            out.append(line)
            out += run_command(line[2:], cwd, env)
    return out


def _fence_end(lines: list[str], start: int) -> int:
    """Index of the closing fence of the block opened at lines[start]."""
    for j in range(start + 1, len(lines)):
        if lines[j].startswith("```"):
            return j
    raise ValueError(f"line {start + 1}: the block is not closed")


def _include(m: re.Match[str]) -> list[str]:
    text = (ROOT / m["path"]).read_text(encoding="utf-8").splitlines()
    return text[int(m["a"]) - 1 : int(m["b"])] if m["a"] else text


def regenerate(page: str) -> str:
    """The page with every marked block recomputed."""
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    with tempfile.TemporaryDirectory(prefix="fito-docs-") as tmp:
        env = _scratch(Path(tmp))
        i = 0
        while i < len(lines):
            line = lines[i]
            include, table = INCLUDE.fullmatch(line), TABLE.fullmatch(line)
            if line.startswith("```console"):
                end = _fence_end(lines, i)
                out += [line, *_console(lines[i + 1 : end], Path(tmp), env), lines[end]]
                i = end + 1
            elif include:
                end = _fence_end(lines, i + 1)
                out += [line, lines[i + 1], *_include(include), lines[end]]
                i = end + 1
            elif table:
                end = i + 1
                while end < len(lines) and lines[end].startswith("|"):
                    end += 1
                out += [line, *TABLES[table["name"]]()]
                i = end
            else:
                out.append(line)
                i += 1
    return "\n".join(out) + "\n"


def normalized(text: str) -> str:
    """The text without timings and with blanks collapsed: what must not drift."""
    return re.sub(r"[ \t]+", " ", TIMING.sub("#.##", text))


def stale(page: str) -> str:
    """A diff of the page against a fresh run, or '' when only timings differ."""
    old = (ROOT / page).read_text(encoding="utf-8")
    new = regenerate(page)
    if normalized(old) == normalized(new):
        return ""
    return "".join(
        difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), f"{page} (on disk)", f"{page} (regenerated)"
        )
    )


def main(argv: list[str]) -> int:
    check = "--check" in argv
    pages = [a for a in argv if not a.startswith("--")] or list(PAGES)
    status = 0
    for page in pages:
        if check:
            diff = stale(page)
            if diff:
                print(diff)
                status = 1
        else:
            (ROOT / page).write_text(regenerate(page), encoding="utf-8")
            print(f"wrote {page}")
    return status


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # this checkout's fito, not an installed one
    sys.exit(main(sys.argv[1:]))
