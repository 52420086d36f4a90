"""PyTorch DCP users: `torch.distributed.checkpoint.save` / `load` of a real model and its
Adam optimizer through fito's storage writer and reader. Epochs are committed manifests;
a damaged or interrupted epoch is refused and the newest intact one loaded, never a mix;
a value that would need pickle is refused. (Many ranks: see test_ranks.py, mode dcp.)"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import pickle
import shutil
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", exc_type=ImportError)
dcp = pytest.importorskip("torch.distributed.checkpoint", exc_type=ImportError)

from fito.runtime import NoConsistentEpoch, faults, scan  # noqa: E402
from fito.runtime.codec import parse_header  # noqa: E402
from fito.runtime.dcp import FitoStorageReader, FitoStorageWriter  # noqa: E402
from fito.runtime.durable import DiskFull  # noqa: E402
from fito.runtime.layout import manifest_relpath, shard_relpath  # noqa: E402
from fito.runtime.manifest import canonical  # noqa: E402

pytestmark = [pytest.mark.torch, pytest.mark.filterwarnings("ignore:torch.distributed is disabled")]


def build() -> tuple:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    return model, torch.optim.Adam(model.parameters(), lr=1e-2)


def train_step(model, opt, seed: int) -> None:
    g = torch.Generator().manual_seed(seed)
    opt.zero_grad()
    model(torch.randn(5, 6, generator=g)).pow(2).mean().backward()
    opt.step()


def state(model, opt) -> dict:
    return {"model": model.state_dict(), "optim": opt.state_dict(), "extra": {"seen": 7}}


def snapshot(model, opt) -> bytes:
    """Everything restorable, as bytes (parameters, Adam moments and step counts)."""
    parts = [t.numpy().tobytes() for t in model.state_dict().values()]
    for s in opt.state_dict()["state"].values():
        parts += [s[k].numpy().tobytes() for k in sorted(s)]
    return hashlib.sha256(b"".join(parts)).digest()


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[int, bytes]]:
    """Epochs 1..3 of a trained model and optimizer, saved with plain dcp.save calls."""
    root = tmp_path_factory.mktemp("dcp") / "ckpt"
    model, opt = build()
    writer, snaps = FitoStorageWriter(root, keep=3), {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in (1, 2, 3):
            train_step(model, opt, epoch)
            dcp.save(state(model, opt), storage_writer=writer, checkpoint_id=epoch)
            snaps[epoch] = snapshot(model, opt)
    return root, snaps


def failure(call, *args, **kw) -> str:
    """The message of what call raised: DCP wraps errors in CheckpointException, a
    BaseException."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(*args, **kw)
    except BaseException as exc:  # noqa: BLE001
        return str(exc)
    raise AssertionError("no error")


def load(root: Path, **kw) -> tuple[int, bytes, dict]:
    """dcp.load into a fresh model and optimizer (which took a different step first)."""
    model, opt = build()
    train_step(model, opt, 99)
    sd = state(model, opt)
    sd["extra"] = {"seen": 0}
    reader = FitoStorageReader(root, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.load(sd, storage_reader=reader)
    model.load_state_dict(sd["model"])
    opt.load_state_dict(sd["optim"])
    return reader.epoch, snapshot(model, opt), sd


def test_save_and_load_a_model_and_its_optimizer(saved, tmp_path: Path) -> None:
    root, snaps = saved
    epoch, snap, sd = load(root)
    assert epoch == 3 and snap == snaps[3] and sd["extra"] == {"seen": 7}
    assert load(root, epoch=2)[1] == snaps[2]
    s = scan(root)
    assert s.restore_epoch == 3 and {v.status for v in s.epochs} == {"consistent"}
    assert [d for d, _ in s.holdings] == ["dcp-metadata", "dcp@0"]
    body = json.loads((root / manifest_relpath(3)).read_text())
    assert set(body["domains"]) == {"dcp-metadata", "dcp@0"}


@pytest.mark.parametrize(
    "how",
    [
        "flip a tensor byte",
        "delete the rank's shard",
        "truncate the metadata",
        "delete the manifest",
    ],
)
def test_a_damaged_epoch_is_refused_and_the_previous_loaded(
    saved, tmp_path: Path, how: str
) -> None:
    src, snaps = saved
    root = tmp_path / "c"
    shutil.copytree(src, root)
    shard = root / shard_relpath("dcp@0", 3)
    if how == "flip a tensor byte":
        data = bytearray(shard.read_bytes())
        data[-1] ^= 1
        shard.write_bytes(bytes(data))
    elif how == "delete the rank's shard":
        shard.unlink()
    elif how == "truncate the metadata":
        meta = root / shard_relpath("dcp-metadata", 3)
        meta.write_bytes(meta.read_bytes()[:100])
    else:
        (root / manifest_relpath(3)).unlink()
    epoch, snap, _ = load(root)
    assert epoch == 2 and snap == snaps[2]
    assert scan(root).restore_epoch == 2


def test_a_value_that_needs_pickle_is_never_unpickled(saved, tmp_path: Path) -> None:
    """A re-signed epoch whose non-tensor value is a pickle that would run code."""
    src, _ = saved
    root = tmp_path / "c"
    shutil.copytree(src, root)
    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):
            return (Path.touch, (marker,))

    shard = root / shard_relpath("dcp@0", 3)
    data = shard.read_bytes()
    evil = io.BytesIO()
    torch.save({"seen": Exploit()}, evil, pickle_module=pickle)
    forged = data + evil.getvalue()
    shard.write_bytes(forged)
    _resign(root, 3, "dcp@0", forged)
    _point_at(root, 3, "extra.seen", len(data), len(evil.getvalue()))
    assert "needs pickle" in failure(load, root) and not marker.exists()


def test_disk_full_during_dcp_save_leaves_the_previous_epoch(saved, tmp_path: Path) -> None:
    src, snaps = saved
    root = tmp_path / "c"
    shutil.copytree(src, root)
    model, opt = build()
    train_step(model, opt, 4)
    faults.arm(6, 0.5, fail=errno.ENOSPC)
    try:
        message = failure(
            dcp.save, state(model, opt), storage_writer=FitoStorageWriter(root), checkpoint_id=4
        )
    finally:
        faults.arm(0)
    assert f"{DiskFull.__name__}: disk full" in message
    assert not list(root.rglob("*.tmp")) and not list(root.rglob("e0000000004*"))
    assert load(root)[0:2] == (3, snaps[3])


def test_epochs_must_grow_unless_resumed(saved, tmp_path: Path) -> None:
    src, snaps = saved
    root = tmp_path / "c"
    shutil.copytree(src, root)
    model, opt = build()
    train_step(model, opt, 5)
    assert "not newer" in failure(
        dcp.save, state(model, opt), storage_writer=FitoStorageWriter(root), checkpoint_id=2
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save(
            state(model, opt),
            storage_writer=FitoStorageWriter(root, resume_from=1),
            checkpoint_id=2,
        )
    assert load(root)[1] == snapshot(model, opt) and scan(root).restore_epoch == 2
    assert "nothing to restore" in failure(load, tmp_path / "missing")  # the first run


def test_nothing_consistent_is_said(tmp_path: Path) -> None:
    root = tmp_path / "c"
    model, opt = build()
    train_step(model, opt, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save(state(model, opt), storage_writer=FitoStorageWriter(root))
    (root / shard_relpath("dcp@0", 1)).unlink()
    reader = FitoStorageReader(root)
    model, opt = build()
    assert "missing-shard" in failure(dcp.load, state(model, opt), storage_reader=reader)
    assert isinstance(reader.error, NoConsistentEpoch) and reader.epoch is None
    assert [s.reason for s in reader.skipped] == ["missing-shard"]


def _resign(root: Path, epoch: int, domain: str, data: bytes) -> None:
    path = root / manifest_relpath(epoch)
    body = json.loads(path.read_text())
    body.pop("checksum")
    body["domains"][domain].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    body["checksum"] = hashlib.sha256(canonical(body)).hexdigest()
    path.write_bytes(canonical(body))


def _point_at(root: Path, epoch: int, fqn: str, offset: int, length: int) -> None:
    """Make DCP's metadata place fqn at (offset, length) of the rank's shard, re-signed."""
    from torch.distributed.checkpoint import metadata as md

    from fito.runtime.dcp import _SAFE

    path = root / shard_relpath("dcp-metadata", epoch)
    data = path.read_bytes()
    head = parse_header(data)[1]
    with torch.serialization.safe_globals(_SAFE):
        meta = torch.load(io.BytesIO(data[head:]), weights_only=True)
    key = next(k for k in meta.storage_data if k.fqn == fqn)
    file, _, _, dtype, shape = meta.storage_data[key]
    meta.storage_data[key] = (file, offset, length, dtype, shape)
    assert isinstance(meta, md.Metadata)
    buffer = io.BytesIO()
    torch.save(meta, buffer)
    forged = data[:head] + buffer.getvalue()
    path.write_bytes(forged)
    _resign(root, epoch, "dcp-metadata", forged)
