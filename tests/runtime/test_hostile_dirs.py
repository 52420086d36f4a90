"""Crafted checkpoint directories, as a hostile user would make them (the audit of issue 18):
links out of the directory, FIFOs and devices, JSON nested or sized to break a parser,
numbers out of range, re-signed payloads that do not decode, unpadded and conflicting
manifests. For each: nothing outside DIR is opened, nothing hangs or raises, the epoch is
skipped with its reason, and `restore`, `scan` and `fito inspect` name the same epoch."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import stat
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fito.cli.main import main
from fito.runtime import CheckpointError, CheckpointWriter, NoConsistentEpoch, restore, scan
from fito.runtime.codec import MAGIC, parse_header
from fito.runtime.layout import manifest_relpath, shard_relpath
from fito.runtime.manifest import canonical

DOMAINS = ("data", "model")


def state(domain: str, epoch: int) -> object:
    if domain == "model":
        return {"w": np.arange(64, dtype=np.float32) * epoch}
    return {"epoch": epoch, "order": [epoch, 2 * epoch]}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "ckpt"
    with CheckpointWriter(root, keep=5) as w:
        for e in (1, 2, 3):
            w.save(e, {d: state(d, e) for d in DOMAINS})
    return root


# ---------------------------------------------------------------------------- tampering
def _shard(r: Path, domain: str = "model", epoch: int = 3) -> Path:
    return r / shard_relpath(domain, epoch)


def _manifest(r: Path, epoch: int = 3) -> Path:
    return r / manifest_relpath(epoch)


def _replace(path: Path, make: Callable[[Path], None]) -> None:
    path.unlink()
    make(path)


def _link_outside_copy(r: Path) -> None:
    outside = r.parent / "outside.shard"
    shutil.copyfile(_shard(r), outside)  # identical bytes: only the link gives it away
    _replace(_shard(r), lambda p: p.symlink_to(outside))


def _link_dir_outside(r: Path) -> None:
    outside = r.parent / "outside-model"
    shutil.copytree(r / "shards" / "model", outside)
    shutil.rmtree(r / "shards" / "model")
    (r / "shards" / "model").symlink_to(outside, target_is_directory=True)


def _link_commits_outside(r: Path) -> None:
    outside = r.parent / "outside-commits"
    shutil.copytree(r / "commits", outside)
    shutil.rmtree(r / "commits")
    (r / "commits").symlink_to(outside, target_is_directory=True)


def _device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # what /dev/zero is
    except (PermissionError, OSError):
        pytest.skip("cannot create a device node here")


def _sparse(path: Path, size: int) -> None:
    with open(path, "r+b") as f:
        f.truncate(size)


def _header(r: Path, body: bytes) -> None:
    data = _shard(r).read_bytes()
    _shard(r).write_bytes(MAGIC + body + b"\n" + data[parse_header(data)[1] :])


def _resign(
    r: Path, change: Callable[[dict], None], epoch: int = 3, name: str | None = None
) -> None:
    """Edit a manifest and give it a valid checksum again (anyone can: it is no signature)."""
    body = json.loads(_manifest(r, epoch).read_text())
    body.pop("checksum")
    change(body)
    body["checksum"] = hashlib.sha256(canonical(body)).hexdigest()
    (r / "commits" / name if name else _manifest(r, epoch)).write_bytes(canonical(body))


def _undecodable_payload(r: Path) -> None:
    data = _shard(r, "data").read_bytes()
    forged = data[: parse_header(data)[1]] + b'{"map": {"epoch": {"unknown-tag": 1}}}'
    _shard(r, "data").write_bytes(forged)

    def entry(body: dict) -> None:
        body["domains"]["data"].update(sha256=hashlib.sha256(forged).hexdigest(), bytes=len(forged))

    _resign(r, entry)


def _deep_payload(r: Path) -> None:
    data = _shard(r, "data").read_bytes()
    forged = data[: parse_header(data)[1]] + b"[" * 100_000 + b"]" * 100_000
    _shard(r, "data").write_bytes(forged)
    _resign(
        r,
        lambda b: b["domains"]["data"].update(
            sha256=hashlib.sha256(forged).hexdigest(), bytes=len(forged)
        ),
    )


# (name, tampering, the reason epoch 3 is refused or None, the epoch a restore takes)
CASES: list[tuple[str, Callable[[Path], None], str | None, int | None]] = [
    ("shard linked to an identical copy outside DIR", _link_outside_copy, "not-regular", 2),
    (
        "shard linked to /etc/passwd",
        lambda r: _replace(_shard(r), lambda p: p.symlink_to("/etc/passwd")),
        "not-regular",
        2,
    ),
    (
        "shard linked to /dev/zero",
        lambda r: _replace(_shard(r), lambda p: p.symlink_to("/dev/zero")),
        "not-regular",
        2,
    ),
    ("FIFO in place of a shard", lambda r: _replace(_shard(r), os.mkfifo), "not-regular", 2),
    (
        "FIFO in place of the manifest",
        lambda r: _replace(_manifest(r), os.mkfifo),
        "not-regular",
        2,
    ),
    ("device node in place of a shard", lambda r: _replace(_shard(r), _device), "not-regular", 2),
    ("directory in place of a shard", lambda r: _replace(_shard(r), Path.mkdir), "not-regular", 2),
    (
        "manifest linked to the manifest of epoch 2",
        lambda r: _replace(_manifest(r), lambda p: p.symlink_to(_manifest(r, 2))),
        "not-regular",
        2,
    ),
    ("domain directory linked outside DIR", _link_dir_outside, "not-regular", None),
    ("commits/ linked outside DIR", _link_commits_outside, "uncommitted", None),
    (
        "manifest of 100,000 nested [",
        lambda r: _manifest(r).write_bytes(b"[" * 100_000),
        "torn-manifest",
        2,
    ),
    (
        "manifest with an epoch of 1e999",
        lambda r: _manifest(r).write_bytes(
            _manifest(r).read_bytes().replace(b'"epoch":3,"format"', b'"epoch":1e999,"format"')
        ),
        "torn-manifest",
        2,
    ),
    (
        "re-signed manifest whose epoch is true",
        lambda r: _resign(r, lambda b: b["domains"]["model"].update(epoch=True)),
        "torn-manifest",
        2,
    ),
    (
        "re-signed manifest with a negative size",
        lambda r: _resign(r, lambda b: b["domains"]["model"].update(bytes=-1)),
        "torn-manifest",
        2,
    ),
    (
        "re-signed manifest whose version is true",
        lambda r: _resign(r, lambda b: b.update(version=True)),
        "torn-manifest",
        2,
    ),
    *(
        (
            f"re-signed manifest claiming codec {codec!r} for an npz shard",
            lambda r, codec=codec: _resign(r, lambda b: b["domains"]["model"].update(codec=codec)),
            "undecodable",
            2,
        )
        for codec in ("json", "torch", "dcp", "dcp-metadata", "pickle")
    ),
    ("manifest of 17 MiB (sparse)", lambda r: _sparse(_manifest(r), 17 << 20), "torn-manifest", 2),
    (
        "shard header of 2,000 nested [",
        lambda r: _header(r, b"[" * 2000 + b"]" * 2000),
        "hash-mismatch",
        2,
    ),
    (
        "shard header with an epoch of 1e999",
        lambda r: _header(r, b'{"codec":"npz","domain":"model","epoch":1e999}'),
        "hash-mismatch",
        2,
    ),
    (
        "shard header with an epoch of true",
        lambda r: _header(r, b'{"codec":"npz","domain":"model","epoch":true}'),
        "hash-mismatch",
        2,
    ),
    ("shard of 1 TiB (sparse)", lambda r: _sparse(_shard(r), 1 << 40), "hash-mismatch", 2),
    ("re-signed payload that does not decode", _undecodable_payload, "undecodable", 2),
    ("re-signed payload of 100,000 nested [", _deep_payload, "undecodable", 2),
    ("unpadded commits/e3.json", lambda r: _manifest(r).rename(r / "commits" / "e3.json"), None, 3),
    (
        "a copy of the manifest as commits/e3.json",
        lambda r: shutil.copyfile(_manifest(r), r / "commits" / "e3.json"),
        None,
        3,
    ),
    (
        "a second, different manifest commits/e3.json",
        lambda r: _resign(r, lambda b: b["metadata"].update(forged=True), name="e3.json"),
        "conflicting-manifests",
        2,
    ),
]


class Hung(BaseException):
    """Raised by the deadline; not an OSError, so no `except OSError` can swallow it."""


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging (a FIFO opened for reading blocks until a writer comes)."""

    def expire(*_: object) -> None:
        raise Hung(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _inspect(root: Path) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["inspect", str(root), "--format", "json"])
    return status, json.loads(out.getvalue()), err.getvalue()


@pytest.mark.parametrize("name, tamper, reason, expected", CASES, ids=[c[0] for c in CASES])
def test_tampering_skips_to_the_newest_intact_epoch(
    pristine: Path, tmp_path: Path, name: str, tamper, reason: str | None, expected: int | None
) -> None:
    root = tmp_path / "ckpt"
    shutil.copytree(pristine, root, symlinks=True)
    tamper(root)
    with deadline(5):
        try:
            r = restore(root)
            got, skipped = r.epoch, r.skipped
            assert all(_same(r.states[d], state(d, got)) for d in DOMAINS)
        except NoConsistentEpoch as exc:
            got, skipped = None, exc.skipped
        s = scan(root)
        status, report, err = _inspect(root)
    assert got == expected == s.restore_epoch == report["restore"]["epoch"], name
    reasons = {k.reason for k in skipped if k.epoch == 3}
    assert reasons == ({reason} if reason else set()), (name, skipped)
    assert status == (0 if reason is None else 1) and err == ""
    details = " ".join(k.detail for k in skipped)
    assert str(os.stat("/etc/passwd").st_size) not in details.split()  # nothing was read


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b) and a.dtype == b.dtype
    return a == b


# ---------------------------------------------------------------------------- the writer
def test_writer_never_writes_through_a_planted_link(pristine: Path, tmp_path: Path) -> None:
    root = tmp_path / "ckpt"
    shutil.copytree(pristine, root)
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    for d in DOMAINS:
        (root / (shard_relpath(d, 4) + ".tmp")).symlink_to(victim)
    (root / (manifest_relpath(4) + ".tmp")).symlink_to(victim)
    with CheckpointWriter(root, keep=5) as w:
        w.save(4, {d: state(d, 4) for d in DOMAINS})
    assert victim.read_bytes() == b"precious" and restore(root).epoch == 4


def test_writer_refuses_a_linked_domain_directory(pristine: Path, tmp_path: Path) -> None:
    root = tmp_path / "ckpt"
    shutil.copytree(pristine, root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "shards" / "rng").symlink_to(elsewhere, target_is_directory=True)
    with CheckpointWriter(root, keep=5) as w, pytest.raises(CheckpointError, match="link"):
        w.save(4, {"rng": {"x": 1}, **{d: state(d, 4) for d in DOMAINS}})
    assert list(elsewhere.iterdir()) == [] and restore(root).epoch == 3
    assert not list(root.rglob("*.tmp")) and not (root / shard_relpath("data", 4)).exists()


def test_writer_collects_unpadded_names_too(pristine: Path, tmp_path: Path) -> None:
    root = tmp_path / "ckpt"
    shutil.copytree(pristine, root)
    _manifest(root, 1).rename(root / "commits" / "e1.json")
    _shard(root, "model", 1).rename(root / "shards" / "model" / "e1.shard")
    with CheckpointWriter(root, keep=2) as w:
        w.save(4, {d: state(d, 4) for d in DOMAINS})
    assert sorted(p.name for p in (root / "commits").iterdir()) == [
        Path(manifest_relpath(e)).name for e in (3, 4)
    ]
    assert not (root / "shards" / "model" / "e1.shard").exists()


# ---------------------------------------------------------------------------- any bytes
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _agree(root: Path, expected: int) -> None:
    """restore, scan and inspect all name expected, and nothing else escapes."""
    assert restore(root).epoch == expected == scan(root).restore_epoch
    assert _inspect(root)[1]["restore"]["epoch"] == expected


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.binary(max_size=400), where=st.sampled_from(["manifest", "header", "shard"]))
def test_any_bytes_skip_to_the_intact_epoch(
    pristine: Path, tmp_path_factory, data: bytes, where: str
) -> None:
    root = tmp_path_factory.mktemp("bytes") / "ckpt"
    shutil.copytree(pristine, root)
    if where == "manifest":
        _manifest(root).write_bytes(data)
    elif where == "header":
        _header(root, data.replace(b"\n", b" "))
    else:
        _shard(root).write_bytes(MAGIC + data)
    _agree(root, 2)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    field=st.sampled_from(
        [
            "epoch",
            "format",
            "version",
            "domains",
            "metadata",
            "model",
            "model.epoch",
            "model.bytes",
            "model.file",
            "model.sha256",
            "model.codec",
        ]
    ),
    value=_JSON,
)
def test_any_resigned_field_is_refused_or_harmless(
    pristine: Path, tmp_path_factory, field: str, value: object
) -> None:
    """A manifest re-signed with any JSON in any field: refused, or (metadata) still the
    same commit; never an exception, never another epoch's shard."""
    root = tmp_path_factory.mktemp("fields") / "ckpt"
    shutil.copytree(pristine, root)
    original: list[object] = []

    def change(body: dict) -> None:
        holder, key = body, field
        if field.startswith("model"):
            holder, key = body["domains"], "model"
            if field != "model":
                holder, key = body["domains"]["model"], field.partition(".")[2]
        original.append(holder[key])
        holder[key] = value

    _resign(root, change)
    same = value == original[0] and type(value) is type(original[0])  # true is not 1
    harmless = (field == "metadata" and isinstance(value, dict)) or same
    _agree(root, 3 if harmless else 2)


def test_torn_manifests_cost_one_listing(
    pristine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hundreds of torn manifests above the intact epochs: restore and scan list commits/ a
    bounded number of times, not once per epoch (which made them quadratic), and agree."""
    from fito.runtime import layout

    root = tmp_path / "ckpt"
    shutil.copytree(pristine, root)
    for e in range(4, 304):
        (root / manifest_relpath(e)).write_bytes(b"{torn")
    calls = []
    listing = layout.manifest_files
    monkeypatch.setattr(layout, "manifest_files", lambda r: calls.append(r) or listing(r))
    _agree(root, 3)
    assert len(calls) <= 8, len(calls)
    assert {s.reason for s in restore(root).skipped} == {"torn-manifest"}
