"""`fito inspect` on the formats users already write: each layout built here with the real
library calls where they install (torch.save, plain DCP), each defect of the issue threads
(a shard from another step, a save killed before its last file, a `latest` pointer moved
first, components picked newest-first from different steps) reported with exit 1, the
sound layout with exit 0."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

from fito.runtime import formats  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _inspect(path: Path) -> tuple[int, dict]:
    """What `fito inspect PATH --format json` reports, in process: (exit status, JSON)."""
    found = formats.inspect_checkpoint(path)
    return (0 if found.ok else 1), json.loads(json.dumps(formats.to_json(found)))


def _cli(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fito", "inspect", str(path), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )


def _adam_state(steps: int) -> dict:
    w = torch.nn.Parameter(torch.ones(4))
    opt = torch.optim.Adam([w], lr=0.1)
    for _ in range(steps):
        w.grad = torch.ones(4)
        opt.step()
    return opt.state_dict()


def _scheduler_state(steps: int) -> dict:
    w = torch.nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD([w], lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 10)
    for _ in range(steps):
        opt.step()
        sched.step()
    return sched.state_dict()


def _hf_checkpoint(folder: Path, step: int, *, optimizer_step: int | None = None) -> None:
    folder.mkdir(parents=True)
    torch.save({"w": torch.ones(4)}, folder / "pytorch_model.bin")
    torch.save(
        _adam_state(step if optimizer_step is None else optimizer_step), folder / "optimizer.pt"
    )
    torch.save(_scheduler_state(step), folder / "scheduler.pt")
    torch.save({"python": 1}, folder / "rng_state.pth")
    (folder / "trainer_state.json").write_text(json.dumps({"global_step": step}))


def test_hugging_face_trainer(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _hf_checkpoint(out / "checkpoint-10", 10)
    _hf_checkpoint(out / "checkpoint-20", 20)
    code, report = _inspect(out)
    assert (code, report["format"], report["resume"]) == (0, "hf-trainer", "checkpoint-20")
    newest = report["checkpoints"][0]
    steps = {c["name"]: c["step"] for c in newest["components"]}
    assert steps["optimizer"] == 20 and steps["scheduler"] == 20 and steps["trainer_state"] == 20
    # the optimizer's moments copied from an older step: mixed
    shutil.copy(out / "checkpoint-10" / "optimizer.pt", out / "checkpoint-20" / "optimizer.pt")
    code, report = _inspect(out)
    assert (code, report["verdict"]) == (1, "mixed")
    assert any("optimizer.pt is from step 10" in p for p in report["checkpoints"][0]["problems"])
    # a save killed before trainer_state.json: the Trainer would resume from it anyway
    _hf_checkpoint(out / "checkpoint-30", 30)
    (out / "checkpoint-30" / "trainer_state.json").unlink()
    code, report = _inspect(out)
    assert (code, report["verdict"], report["resume"]) == (1, "uncommitted", "checkpoint-30")


def test_plain_dcp(tmp_path: Path) -> None:
    import torch.distributed.checkpoint as dcp

    root = tmp_path / "dcp"
    dcp.save({"w": torch.arange(8.0), "step": 5}, checkpoint_id=str(root))
    code, report = _inspect(root)
    assert (code, report["format"], report["verdict"]) == (0, "dcp", "consistent")
    assert any("no hash" in u for u in report["unverifiable"])  # said, not hidden
    shard = next(root.glob("*.distcp"))
    data = shard.read_bytes()
    shard.write_bytes(data[: len(data) // 2])  # truncated
    code, report = _inspect(root)
    assert (code, report["verdict"]) == (1, "incomplete")
    (root / ".metadata").unlink()  # DCP writes it last: the save never finished
    code, report = _inspect(root)
    assert (code, report["verdict"]) == (1, "uncommitted")


def test_plain_dcp_metadata_is_never_unpickled_freely(tmp_path: Path) -> None:
    import pickle

    root = tmp_path / "dcp"
    root.mkdir()
    (root / "__0_0.distcp").write_bytes(b"x")
    (root / ".metadata").write_bytes(pickle.dumps(os.system))  # a hostile pickle
    found = formats.inspect_checkpoint(root)
    assert found.verdict == "incomplete" and "not DCP metadata" in " ".join(
        found.candidates[0].problems
    )


def test_deepspeed_latest_tag(tmp_path: Path) -> None:
    root = tmp_path / "ds"
    for step in (100, 200):
        tag = root / f"global_step{step}"
        tag.mkdir(parents=True)
        torch.save({"module": {}}, tag / "mp_rank_00_model_states.pt")
        for r in range(2):
            torch.save({}, tag / f"zero_pp_rank_{r}_mp_rank_00_optim_states.pt")
    (root / "latest").write_text("global_step200")
    assert _inspect(root)[0] == 0
    (root / "latest").write_text("global_step300")  # moved before the write it names
    code, report = _inspect(root)
    assert (code, report["verdict"]) == (1, "uncommitted")
    (root / "latest").write_text("global_step200")
    (root / "global_step200" / "zero_pp_rank_0_mp_rank_00_optim_states.pt").unlink()
    code, report = _inspect(root)
    assert (code, report["verdict"]) == (1, "incomplete")


def test_megatron_tracker(tmp_path: Path) -> None:
    root = tmp_path / "mg"
    (root / "iter_0000100" / "mp_rank_00").mkdir(parents=True)
    torch.save({"iteration": 100}, root / "iter_0000100" / "mp_rank_00" / "model_optim_rng.pt")
    (root / "latest_checkpointed_iteration.txt").write_text("100")
    assert _inspect(root)[0] == 0
    (root / "latest_checkpointed_iteration.txt").write_text("200")
    assert _inspect(root)[0] == 1


def test_lightning_ckpt(tmp_path: Path) -> None:
    root = tmp_path / "lt"
    root.mkdir()
    full = {
        "global_step": 40,
        "epoch": 1,
        "state_dict": {"w": torch.ones(2)},
        "optimizer_states": [_adam_state(40)],
    }
    torch.save(full, root / "epoch=1-step=40.ckpt")
    assert _inspect(root / "epoch=1-step=40.ckpt")[0] == 0  # a single file
    torch.save(dict(full, optimizer_states=[_adam_state(30)]), root / "last.ckpt")
    code, report = _inspect(root)
    assert (code, report["resume"], report["verdict"]) == (1, "last.ckpt", "mixed")


def test_torch_save_files_picked_newest_first(tmp_path: Path) -> None:
    root = tmp_path / "pt"
    root.mkdir()
    for step in (10, 20):
        torch.save({"w": torch.ones(2)}, root / f"model_step{step}.pt")
        torch.save(_adam_state(step), root / f"optimizer_step{step}.pt")
    assert _inspect(root)[0] == 0
    torch.save({"w": torch.ones(2)}, root / "model_step30.pt")  # the optimizer's never came
    code, report = _inspect(root)
    assert (code, report["verdict"]) == (1, "mixed")
    assert report["notes"] == ["the newest step every component holds: 20"]


def test_hostile_links_are_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "out"
    _hf_checkpoint(root / "checkpoint-10", 10)
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"global_step": 10}))
    state = root / "checkpoint-10" / "trainer_state.json"
    state.unlink()
    state.symlink_to(secret)  # a link is not a file of the checkpoint
    found = formats.inspect_checkpoint(root)
    assert found.verdict == "uncommitted"


def test_command_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _hf_checkpoint(out / "checkpoint-10", 10)
    done = _cli(out, "--format", "json")
    assert done.returncode == 0 and json.loads(done.stdout)["resume"] == "checkpoint-10"
    (out / "checkpoint-10" / "trainer_state.json").unlink()
    done = _cli(out)
    assert done.returncode == 1 and "resume: checkpoint-10: uncommitted" in done.stdout
    assert (
        _cli(out, "--format", "prometheus").stdout.count("fito_checkpoint_resume_consistent") == 3
    )
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("x")
    done = _cli(tmp_path / "other")
    assert done.returncode == 2 and "C201" in done.stderr


def test_hostile_foreign_directories_get_verdicts_not_tracebacks(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _hf_checkpoint(out / "checkpoint-10", 10)
    folder = out / "checkpoint-10"
    (folder / "trainer_state.json").write_text("[" * 100_000)  # deeper than any parser stack
    (folder / "model.safetensors").write_bytes((8).to_bytes(8, "little") + b"[1,2,3] ")
    (folder / "optimizer.pt").unlink()
    os.mkfifo(folder / "optimizer.pt")  # a FIFO is never opened: nothing hangs
    (out / "checkpoint-99").symlink_to(folder)  # a linked folder is not a checkpoint
    found = formats.inspect_checkpoint(out)
    assert [c.label for c in found.candidates] == ["checkpoint-10"]
    problems = " ".join(found.candidates[0].problems)
    assert "not valid JSON" in problems and "malformed safetensors header" in problems
    assert not found.ok
    dcp_dir = tmp_path / "dcp"
    dcp_dir.mkdir()
    with open(dcp_dir / ".metadata", "wb") as f:  # above the metadata limit: not read
        f.truncate(64 << 20)
    found = formats.inspect_checkpoint(dcp_dir)
    assert found.verdict == "incomplete"
