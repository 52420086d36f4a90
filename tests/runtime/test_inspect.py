"""`fito inspect DIR` (text, json, prometheus) and its exit statuses; the metrics parse as
the Prometheus text exposition format and their values follow from the files on disk."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fito.cli.main import main
from fito.runtime import CheckpointWriter, prometheus_text, scan
from fito.runtime.layout import manifest_relpath, shard_relpath

DOMAINS = ("data", "model", "optimizer")


def make(root: Path, epochs=(1, 2, 3)) -> Path:
    with CheckpointWriter(root, keep=5) as w:
        for e in epochs:
            w.save(e, {d: {"e": e, "x": np.arange(5) * e} for d in DOMAINS})
    return root


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["inspect", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_consistent_directory(tmp_path: Path, capsys) -> None:
    root = make(tmp_path / "c")
    status, out, _ = run(capsys, str(root))
    assert status == 0
    assert re.search(r"model\s+1 2 3", out) and "restore: epoch 3: committed" in out
    status, out, _ = run(capsys, str(root), "--format", "json")
    report = json.loads(out)
    assert status == 0 and report["restore"]["epoch"] == 3
    assert report["domains"] == {d: [1, 2, 3] for d in DOMAINS}
    assert [e["status"] for e in report["epochs"]] == ["consistent"] * 3


@pytest.mark.parametrize(
    "status_word, restored, how",
    [
        ("torn", 2, lambda r: (r / shard_relpath("model", 3)).write_bytes(b"FITO")),
        ("mixed", 2, lambda r: (r / shard_relpath("data", 3)).unlink()),
        ("uncommitted", 2, lambda r: (r / manifest_relpath(3)).unlink()),
        (
            "mixed",
            3,
            lambda r: shutil.copyfile(r / shard_relpath("model", 3), r / shard_relpath("model", 4)),
        ),
    ],
)
def test_newest_not_consistent_exits_1(
    tmp_path: Path, capsys, status_word: str, restored: int, how
) -> None:
    root = make(tmp_path / "c")
    how(root)
    status, out, _ = run(capsys, str(root))
    assert status == 1 and f"is {status_word}" in out
    status, out, _ = run(capsys, str(root), "--format", "json")
    report = json.loads(out)
    assert status == 1 and report["newest"]["status"] == status_word
    assert report["restore"]["epoch"] == restored


def test_older_damage_does_not_fail_the_directory(tmp_path: Path, capsys) -> None:
    root = make(tmp_path / "c")
    (root / shard_relpath("model", 1)).unlink()
    status, out, _ = run(capsys, str(root), "--format", "json")
    report = json.loads(out)
    assert status == 0 and report["restore"]["epoch"] == 3
    assert report["epochs"][-1]["problems"][0]["reason"] == "missing-shard"


def test_unreadable_or_foreign_directories_exit_2(tmp_path: Path, capsys) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty").mkdir()
    for path, code in (
        (tmp_path / "nope", "C002"),
        (tmp_path / "file", "C002"),
        (tmp_path / "empty", "C201"),
    ):
        status, out, err = run(capsys, str(path))
        assert status == 2 and out == "" and err.count("\n") == 1 and f"[{code} " in err
    status, out, err = run(capsys, str(tmp_path / "empty"), "--format", "json")
    assert status == 2 and json.loads(out)["error"]["code"] == "C201"


def test_fresh_directory_has_nothing_to_restore(tmp_path: Path, capsys) -> None:
    CheckpointWriter(tmp_path / "c").close()
    status, out, _ = run(capsys, str(tmp_path / "c"))
    assert status == 0 and "holds no epoch" in out


def test_console_script(tmp_path: Path) -> None:
    root = make(tmp_path / "c")
    (root / manifest_relpath(3)).write_text("{")
    proc = subprocess.run(
        [sys.executable, "-m", "fito", "inspect", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1 and "torn-manifest" in proc.stdout


# ---------------------------------------------------------------------------- Prometheus
_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
_SAMPLE = re.compile(
    rf"(?P<name>{_NAME})(?:\{{(?P<labels>(?:{_LABEL},?)*)\}})?"
    rf" (?P<value>\S+)(?: -?\d+)?"
)


def parse_exposition(text: str) -> dict[str, dict]:
    """A small parser of the text exposition format (0.0.4): families with HELP, TYPE and
    samples; raises AssertionError on anything the format does not allow."""
    assert text.endswith("\n")
    families: dict[str, dict] = {}
    seen_series: set[tuple] = set()
    current = None
    for line in text[:-1].split("\n"):
        if not line.strip():
            continue
        if line.startswith("#"):
            m = re.fullmatch(rf"# (HELP|TYPE) ({_NAME}) (.*)", line)
            if not m:
                continue  # a plain comment
            fam = families.setdefault(m.group(2), {"samples": []})
            assert m.group(1).lower() not in fam, f"second {m.group(1)} for {m.group(2)}"
            assert not fam["samples"], f"{m.group(1)} after samples of {m.group(2)}"
            if m.group(1) == "TYPE":
                assert m.group(3) in ("counter", "gauge", "histogram", "summary", "untyped")
            fam[m.group(1).lower()] = m.group(3)
            current = m.group(2)
            continue
        m = _SAMPLE.fullmatch(line)
        assert m, f"not a sample line: {line!r}"
        name = m.group("name")
        assert name == current, f"sample of {name} outside its family"
        labels = tuple((k, _unescape(v)) for k, v in re.findall(_LABEL, m.group("labels") or ""))
        assert len({k for k, _ in labels}) == len(labels)
        assert (name, labels) not in seen_series, f"duplicate series {name}{labels}"
        seen_series.add((name, labels))
        families[name]["samples"].append((dict(labels), _value(m.group("value"))))
    return families


def _unescape(v: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), v)


def _value(text: str) -> float:
    if text in ("NaN", "+Inf", "-Inf"):
        return {"NaN": math.nan, "+Inf": math.inf, "-Inf": -math.inf}[text]
    return float(text)


def test_prometheus_metrics_follow_the_files(tmp_path: Path, capsys) -> None:
    root = make(tmp_path / 'odd "dir" \\ name')
    shutil.copyfile(root / shard_relpath("model", 3), root / shard_relpath("model", 5))
    shutil.copyfile(root / shard_relpath("data", 3), root / shard_relpath("data", 4))
    (root / manifest_relpath(3)).unlink()  # epoch 3 now uncommitted: a restore takes 2
    status, out, _ = run(capsys, str(root), "--format", "prometheus")
    assert status == 1 and out == prometheus_text(scan(root))
    fams = parse_exposition(out)
    assert all("help" in f and f["type"] == "gauge" for f in fams.values())
    held = {d: max(int(n[1:11]) for n in os.listdir(root / "shards" / d)) for d in DOMAINS}
    low, restore_epoch = min(held.values()), 2
    by_domain = {
        name: {s["domain"]: v for s, v in fams[name]["samples"]}
        for name in (
            "fito_checkpoint_domain_epoch",
            "fito_checkpoint_domain_epoch_skew",
            "fito_checkpoint_domain_epochs_ahead_of_restore",
        )
    }
    assert by_domain["fito_checkpoint_domain_epoch"] == held
    assert by_domain["fito_checkpoint_domain_epoch_skew"] == {d: x - low for d, x in held.items()}
    assert by_domain["fito_checkpoint_domain_epochs_ahead_of_restore"] == {
        d: x - restore_epoch for d, x in held.items()
    }
    assert fams["fito_checkpoint_restore_epoch"]["samples"][0][1] == restore_epoch
    assert all(s["dir"] == str(root) for f in fams.values() for s, _ in f["samples"])
    epochs = {s["status"]: v for s, v in fams["fito_checkpoint_epochs"]["samples"]}
    assert epochs == {"consistent": 2, "mixed": 2, "torn": 0, "uncommitted": 1}


def test_parser_rejects_malformed_exposition() -> None:
    good = '# HELP a x\n# TYPE a gauge\na{l="v"} 1\n'
    parse_exposition(good)
    for bad in (
        good[:-1],
        good + "# TYPE a gauge\n",
        good + 'a{l="v"} 2\n',
        '# TYPE a gauge\na{l="v\nw"} 1\n',
        "# TYPE a gauge\na{l=v} 1\n",
        "# TYPE a gauge\nb 1\n",
        "# TYPE a gauge\na one\n",
    ):
        with pytest.raises((AssertionError, ValueError)):
            parse_exposition(bad)


def test_durable_vector_and_its_lattice_point(tmp_path: Path, capsys) -> None:
    root = make(tmp_path / "c")
    shutil.copyfile(root / shard_relpath("model", 3), root / shard_relpath("model", 5))
    (root / shard_relpath("optimizer", 3)).unlink()
    status, out, _ = run(capsys, str(root), "--format", "json")
    assert status == 1
    durable = json.loads(out)["durable"]
    vector = {d: max(int(n[1:11]) for n in os.listdir(root / "shards" / d)) for d in DOMAINS}
    assert durable["vector"] == vector == {"data": 3, "model": 5, "optimizer": 2}
    assert durable["kind"] == "mixed" and durable["best_recovery_point"] == min(vector.values())
    assert json.loads(out)["restore"]["epoch"] == 2
