"""The checkpoint formats users already write, read as `fito inspect` reads its own: what each
lets anyone verify, what it does not, and whether a resume from it would mix steps.

Formats (`detect` tells them apart, most specific first), and what a resume takes:
- `dcp`: plain `torch.distributed.checkpoint`, `.metadata` (a pickle, read by a closed
  unpickler) and `__<rank>_<n>.distcp` files; the directory.
- `hf-trainer`: Hugging Face Trainer `checkpoint-<N>/` folders (`trainer_state.json`, the
  model, `optimizer.pt`, `scheduler.pt`, `rng_state*.pth`); the largest N.
- `deepspeed`: a `latest` file naming a tag folder (`global_step<N>/` with
  `mp_rank_*_model_states.pt` and `*_optim_states.pt`); the tag `latest` names.
- `megatron`: `latest_checkpointed_iteration.txt` naming `iter_<N>/` (`mp_rank_*/...`);
  that iteration.
- `lightning`: `.ckpt` files, one torch.save each (`global_step`, `state_dict`,
  `optimizer_states`, ...); `last.ckpt`, else the newest step.
- `torch-files`: per-component torch.save files (`model.pt`, `optimizer_step90.pt`, ...);
  each component's newest file, which is the FITO mistake when their steps differ.

Reading is bounded and never leaves the directory: every file is opened with fito's
`safeio.open_regular` (no link followed, no FIFO or device opened, the size known first), a
torch file's content is read only below `read_limit` bytes (default 256 MiB), with
`torch.load(weights_only=True)`, and a JSON or pickled metadata file only below 16 MiB.
What needs full unpickling (DeepSpeed's and Megatron's files usually do) is reported as
unverifiable, never unpickled.
"""

from __future__ import annotations

import io
import os
import pickle
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fito.runtime import boundedjson, safeio
from fito.runtime.layout import NotACheckpointDir

FORMATS = ("dcp", "hf-trainer", "deepspeed", "megatron", "lightning", "torch-files")
VERDICTS = ("consistent", "mixed", "uncommitted", "incomplete", "unknown")
READ_LIMIT = 256 << 20
_META_LIMIT = 16 << 20
_TORCH_SUFFIXES = (".pt", ".pth", ".bin", ".ckpt")
_STEP_KEYS = ("global_step", "global_steps", "step", "iteration", "epoch")
_MAX_ENTRIES = 100_000


@dataclass(frozen=True, slots=True)
class Component:
    """One file of a checkpoint and the step it says it is from (None: it does not say)."""

    name: str  # model, optimizer, scheduler, rng, trainer_state, ...
    file: str  # relative to the directory inspected
    size: int
    step: int | None = None
    step_from: str = ""  # where the step was read: a file name, a key of the content


@dataclass(frozen=True, slots=True)
class Candidate:
    """One checkpoint of the directory (a `checkpoint-N` folder, a tag, a file, the whole
    directory) with its components and what is wrong with it."""

    label: str
    step: int | None
    components: tuple[Component, ...]
    problems: tuple[str, ...] = ()
    verdict: str = "consistent"  # one of VERDICTS


@dataclass(frozen=True, slots=True)
class ForeignScan:
    """What `inspect` found: the format, its checkpoints newest first, the one a resume
    takes and its verdict, what was verified and what the format does not let anyone verify."""

    root: str
    format: str
    candidates: tuple[Candidate, ...]
    resume: str | None  # the label of the checkpoint the framework's resume takes
    verdict: str
    verified: tuple[str, ...] = ()
    unverifiable: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        """False when a resume would mix steps or read an uncommitted or incomplete one."""
        return self.verdict == "consistent"


def inspect_checkpoint(
    root: str | os.PathLike[str], *, read_limit: int = READ_LIMIT
) -> ForeignScan:
    """Inspect a checkpoint of one of FORMATS; NotACheckpointDir when it is none of them."""
    path = Path(root)
    if path.is_file() and not path.is_symlink() and path.suffix == ".ckpt":
        return _lightning(path.parent, [path.name], read_limit, str(path))
    kind = detect(path)
    if kind is None:
        raise NotACheckpointDir(
            f"{path}: not a checkpoint directory fito knows (fito.runtime, plain DCP, "
            "Hugging Face Trainer, DeepSpeed, Megatron, Lightning or torch.save files)"
        )
    if kind == "dcp":
        return _dcp(path)
    if kind == "hf-trainer":
        return _hf(path, read_limit)
    if kind == "deepspeed":
        return _deepspeed(path, read_limit)
    if kind == "megatron":
        return _megatron(path, read_limit)
    names = _files(path)
    if kind == "lightning":
        return _lightning(path, [n for n in names if n.endswith(".ckpt")], read_limit, str(path))
    return _torch_files(path, names, read_limit)


def detect(path: Path) -> str | None:
    """The format of a directory, or None."""
    if not safeio.is_real_dir(path):
        return None
    listing = safeio.entries(path)[:_MAX_ENTRIES]
    files = {n for n, regular in listing if regular}
    dirs = {n for n, regular in listing if not regular and safeio.is_real_dir(path / n)}
    if ".metadata" in files or any(n.endswith(".distcp") for n in files):
        return "dcp"
    if any(_HF_DIR.fullmatch(d) for d in dirs) or "trainer_state.json" in files:
        return "hf-trainer"
    if "latest" in files:
        return "deepspeed"
    if "latest_checkpointed_iteration.txt" in files or any(_ITER_DIR.fullmatch(d) for d in dirs):
        return "megatron"
    if any(n.endswith(".ckpt") for n in files):
        return "lightning"
    if any(n.endswith(_TORCH_SUFFIXES) or n.endswith(".safetensors") for n in files):
        return "torch-files"
    return None


# ---------------------------------------------------------------- reading, bounded


def _files(folder: Path) -> list[str]:
    return sorted(n for n, regular in safeio.entries(folder)[:_MAX_ENTRIES] if regular)


def _size(root: Path, rel: str) -> int | None:
    try:
        with safeio.open_regular(root, rel) as (_, size):
            return size
    except OSError:
        return None


def _read(root: Path, rel: str, limit: int) -> bytes | None:
    """The bytes of root/rel when it is a regular file of at most limit bytes, else None."""
    try:
        with safeio.open_regular(root, rel) as (fd, size):
            return bytes(safeio.read_exact(fd, size)) if size <= limit else None
    except OSError:
        return None


def _torch_content(root: Path, rel: str, limit: int) -> tuple[Any, str]:
    """(the loaded object, "") or (None, why it was not read)."""
    data = _read(root, rel, limit)
    if data is None:
        size = _size(root, rel)
        return None, "missing" if size is None else f"larger than the read limit ({size} bytes)"
    try:
        import torch  # lazy-import: fito.runtime loads without torch
    except ImportError:
        return None, "torch is not installed"
    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True), ""
    except Exception as exc:  # weights_only refuses what needs unpickling
        return None, f"needs unpickling to read ({type(exc).__name__})"


def _step_in(obj: Any) -> tuple[int | None, str]:
    """The step a loaded checkpoint dict says it is from, and the key it was read from."""
    if isinstance(obj, dict):
        for key in _STEP_KEYS:
            value = obj.get(key)
            number = _as_int(value)
            if number is not None:
                return number, f"key {key!r}"
    return None, ""


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "numel", lambda: 0)() == 1:
        got = item()
        if isinstance(got, (int, float)) and float(got).is_integer():
            return int(got)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _optimizer_step(obj: Any) -> int | None:
    """The step count an optimizer state_dict's `state` entries hold (Adam's `step`)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("state"), dict):
        return None
    steps = {_as_int(s.get("step")) for s in obj["state"].values() if isinstance(s, dict)}
    steps.discard(None)
    return steps.pop() if len(steps) == 1 else None


def _verdict(problems: list[str], uncommitted: bool = False, mixed: bool = False) -> str:
    if uncommitted:
        return "uncommitted"
    if mixed:
        return "mixed"
    return "incomplete" if problems else "consistent"


# ---------------------------------------------------------------- plain DCP

_DCP_ALLOWED = {
    ("torch.distributed.checkpoint.filesystem", "_StorageInfo"),
    ("torch.serialization", "_get_layout"),
    ("torch", "Size"),
    ("pathlib", "PosixPath"),
    ("pathlib", "PurePosixPath"),
    ("collections", "OrderedDict"),
}


class _MetadataUnpickler(pickle.Unpickler):
    """DCP's `.metadata` is a pickle: only DCP's metadata classes, torch dtypes and sizes."""

    def find_class(self, module: str, name: str) -> Any:
        if (
            module == "torch.distributed.checkpoint.metadata"
            or (module, name) in _DCP_ALLOWED
            or (module == "torch" and re.fullmatch(r"[a-z0-9_]+", name) and _is_dtype(name))
        ):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not DCP metadata")


def _is_dtype(name: str) -> bool:
    import torch  # lazy-import: only a DCP directory needs it

    return isinstance(getattr(torch, name, None), torch.dtype)


def _dcp(root: Path) -> ForeignScan:
    files = _files(root)
    shards = [n for n in files if n.endswith(".distcp")]
    components = tuple(Component("shard", n, _size(root, n) or 0) for n in shards)
    unverifiable = (
        "shard contents: DCP records no hash, so a shard copied from another step loads "
        "silently (fito's FitoStorageWriter records one per shard)",
        "the step: DCP's metadata names no step",
    )
    if ".metadata" not in files:
        why = "no .metadata: DCP writes it last, so the save never finished"
        cand = Candidate(".", None, components, (why,), "uncommitted")
        return ForeignScan(str(root), "dcp", (cand,), None, "uncommitted", (), unverifiable)
    data = _read(root, ".metadata", _META_LIMIT)
    problems: list[str] = []
    verified: list[str] = []
    try:
        metadata = _MetadataUnpickler(io.BytesIO(data or b"")).load() if data else None
    except Exception as exc:
        metadata, reason = None, f"{type(exc).__name__}: {exc}"
        problems.append(f".metadata does not load: {reason}")
    if metadata is None and not problems:
        problems.append(".metadata is missing, unreadable or above 16 MiB")
    if metadata is not None:
        need: dict[str, int] = {}
        for info in getattr(metadata, "storage_data", {}).values():
            rel = getattr(info, "relative_path", None)
            if not isinstance(rel, str) or "/" in rel or rel in ("", ".", ".."):
                problems.append(f".metadata names a file outside the directory: {rel!r}")
                continue
            end = int(getattr(info, "offset", 0)) + int(getattr(info, "length", 0))
            need[rel] = max(need.get(rel, 0), end)
        for rel, end in sorted(need.items()):
            size = _size(root, rel)
            if size is None:
                problems.append(f"{rel}: missing (the metadata places items in it)")
            elif size < end:
                problems.append(f"{rel}: {size} bytes, the metadata needs {end}: truncated")
        chunks = sum(
            len(getattr(m, "chunks", ()) or ()) or 1
            for m in getattr(metadata, "state_dict_metadata", {}).values()
        )
        placed = len(getattr(metadata, "storage_data", {}))
        if placed < chunks:
            problems.append(f"the metadata places {placed} of its {chunks} items")
        verified.append(
            f"completeness: {len(need)} shard files, {placed} items placed, sizes cover them"
        )
        save_id = getattr(getattr(metadata, "storage_meta", None), "save_id", None)
        if save_id:
            verified.append(f"save id {save_id}")
        orphans = sorted(set(shards) - set(need))
        if orphans:
            problems.append("shard files the metadata does not name: " + ", ".join(orphans))
    verdict = _verdict(problems)
    cand = Candidate(".", None, components, tuple(problems), verdict)
    return ForeignScan(str(root), "dcp", (cand,), ".", verdict, tuple(verified), unverifiable)


# ---------------------------------------------------------------- Hugging Face Trainer

_HF_DIR = re.compile(r"checkpoint-(\d{1,18})")
_HF_MODEL = ("model.safetensors", "pytorch_model.bin", "adapter_model.safetensors")
_HF_INDEX = ("model.safetensors.index.json", "pytorch_model.bin.index.json")


def _hf(root: Path, limit: int) -> ForeignScan:
    dirs = sorted(
        (
            (int(m[1]), n)
            for n, regular in safeio.entries(root)[:_MAX_ENTRIES]
            if not regular and (m := _HF_DIR.fullmatch(n)) and safeio.is_real_dir(root / n)
        ),
        reverse=True,
    )
    if not dirs:  # the directory is itself one checkpoint-N folder (or an output dir)
        m = _HF_DIR.fullmatch(root.name)
        cand = _hf_one(root, ".", int(m[1]) if m else None, limit)
        return ForeignScan(
            str(root), "hf-trainer", (cand,), ".", cand.verdict, _HF_VERIFIED, _HF_UNVERIFIABLE
        )
    cands = tuple(_hf_one(root / n, n, step, limit) for step, n in dirs)
    newest = cands[0]
    notes: tuple[str, ...] = ()
    if newest.verdict != "consistent" and len(cands) > 1:
        good = next((c.label for c in cands if c.verdict == "consistent"), None)
        notes = (
            f"the Trainer resumes from the largest N ({newest.label}) without checking it"
            + (f"; {good} is the newest consistent one" if good else ""),
        )
    return ForeignScan(
        str(root),
        "hf-trainer",
        cands,
        newest.label,
        newest.verdict,
        _HF_VERIFIED,
        _HF_UNVERIFIABLE,
        notes,
    )


_HF_VERIFIED = (
    "trainer_state.json's global_step against the folder's N",
    "the optimizer's step count (Adam's `step`) and the scheduler's last_epoch against it",
    "safetensors files complete (header and data length)",
    "every shard a model index names exists",
)
_HF_UNVERIFIABLE = (
    "file contents: the Trainer records no hash",
    "the model weights' step: weights name no step",
)


def _hf_one(folder: Path, label: str, step: int | None, limit: int) -> Candidate:
    files = set(_files(folder))
    comps: list[Component] = []
    problems: list[str] = []
    mixed = False
    uncommitted = "trainer_state.json" not in files
    if uncommitted:
        problems.append(
            "no trainer_state.json: the Trainer writes it last, the save never finished"
        )
    else:
        data = _read(folder, "trainer_state.json", _META_LIMIT)
        state_step = None
        try:
            state = boundedjson.loads(data) if data else None
            state_step = _as_int(state.get("global_step")) if isinstance(state, dict) else None
        except ValueError:
            problems.append("trainer_state.json is not valid JSON")
        comps.append(
            Component(
                "trainer_state", "trainer_state.json", len(data or b""), state_step, "global_step"
            )
        )
        if step is not None and state_step is not None and state_step != step:
            problems.append(f"trainer_state.json says step {state_step}, the folder {step}")
            mixed = True
        step = state_step if step is None else step
    model = [n for n in _HF_MODEL if n in files]
    index = [n for n in _HF_INDEX if n in files]
    for name in model:
        comps.append(Component("model", name, _size(folder, name) or 0))
        if name.endswith(".safetensors"):
            problems += _safetensors_problems(folder, name)
    for name in index:
        problems += _index_problems(folder, name, comps)
    if not model and not index:
        problems.append("no model weights (model.safetensors, pytorch_model.bin or an index)")
    for name, kind in (("optimizer.pt", "optimizer"), ("scheduler.pt", "scheduler")):
        if name not in files:
            continue
        obj, why = _torch_content(folder, name, limit)
        got = (
            _optimizer_step(obj)
            if kind == "optimizer"
            else _as_int(obj.get("last_epoch") if isinstance(obj, dict) else None)
        )
        source = "state[*]['step']" if kind == "optimizer" else "last_epoch"
        comps.append(
            Component(kind, name, _size(folder, name) or 0, got, source if got is not None else why)
        )
        if got is not None and step is not None and got != step:
            problems.append(f"{name} is from step {got}, the checkpoint from step {step}")
            mixed = True
    if "optimizer.pt" not in files and model:
        problems.append("no optimizer.pt: a resume restarts the optimizer (weights only)")
    for name in sorted(n for n in files if n.startswith("rng_state")):
        comps.append(Component("rng", name, _size(folder, name) or 0))
    verdict = _verdict(problems, uncommitted, mixed)
    return Candidate(label, step, tuple(comps), tuple(problems), verdict)


def _safetensors_problems(folder: Path, name: str) -> list[str]:
    try:
        with safeio.open_regular(folder, name) as (fd, size):
            if size < 8:
                return [f"{name}: {size} bytes, shorter than a safetensors header"]
            length = int.from_bytes(safeio.read_exact(fd, 8), "little")
            if length > min(size - 8, _META_LIMIT):
                return [f"{name}: its header claims {length} bytes: truncated or not safetensors"]
            header = boundedjson.loads(safeio.read_exact(fd, 8 + length, 8))
    except (OSError, ValueError) as exc:
        return [f"{name}: unreadable safetensors header ({type(exc).__name__})"]
    try:
        ends = [
            int(v["data_offsets"][1])
            for k, v in header.items()
            if k != "__metadata__" and isinstance(v, dict) and "data_offsets" in v
        ]
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        return [f"{name}: malformed safetensors header"]
    need = 8 + length + max(ends, default=0)
    return [] if size >= need else [f"{name}: {size} bytes, its header needs {need}: truncated"]


def _index_problems(folder: Path, name: str, comps: list[Component]) -> list[str]:
    data = _read(folder, name, _META_LIMIT)
    try:
        weight_map = boundedjson.loads(data or b"null")["weight_map"]
        shards = sorted(set(weight_map.values()))
    except (ValueError, KeyError, TypeError, AttributeError):
        return [f"{name}: not a model index"]
    problems = []
    for shard in shards:
        if not isinstance(shard, str) or "/" in shard:
            problems.append(f"{name} names a file outside the folder: {shard!r}")
            continue
        size = _size(folder, shard)
        if size is None:
            problems.append(f"{shard}: missing (the index names it)")
        else:
            comps.append(Component("model", shard, size))
            if shard.endswith(".safetensors"):
                problems += _safetensors_problems(folder, shard)
    return problems


# ---------------------------------------------------------------- DeepSpeed and Megatron

_ITER_DIR = re.compile(r"iter_(\d{1,18})")
_STEP_IN_NAME = re.compile(r"(\d{1,18})(?!.*\d)")


def _deepspeed(root: Path, limit: int) -> ForeignScan:
    tag = (_read(root, "latest", 4096) or b"").decode("utf-8", "replace").strip()
    tags = sorted(
        (n for n, regular in safeio.entries(root)[:_MAX_ENTRIES] if not regular),
        key=lambda n: (_name_step(n) or -1, n),
        reverse=True,
    )
    cands = [_ds_one(root, n, limit) for n in tags if safeio.is_real_dir(root / n)]
    notes: list[str] = []
    resume = tag if tag in tags else None
    if not tag or "/" in tag or tag in (".", ".."):
        verdict, notes = "incomplete", ["`latest` is empty or names a path outside the directory"]
        resume = None
    elif resume is None:
        verdict = "uncommitted"
        notes.append(f"`latest` names {tag!r}, which is not there: moved before its write")
    else:
        chosen = next(c for c in cands if c.label == tag)
        verdict = chosen.verdict
        newer = [c.label for c in cands if (c.step or -1) > (chosen.step or -1)]
        if newer:
            notes.append("tags newer than `latest` (saves never committed): " + ", ".join(newer))
    return ForeignScan(
        str(root),
        "deepspeed",
        tuple(cands),
        resume,
        verdict,
        (
            "`latest` names an existing tag",
            "the tag holds model states and a consistent set of optimizer partitions",
        ),
        (
            "file contents: DeepSpeed records no hash",
            "the step inside its files: they need unpickling",
        ),
        tuple(notes),
    )


def _ds_one(root: Path, tag: str, limit: int) -> Candidate:
    files = _files(root / tag)
    model = [n for n in files if n.endswith("model_states.pt")]
    optim = [n for n in files if n.endswith("optim_states.pt")]
    comps = [Component("model", f"{tag}/{n}", _size(root / tag, n) or 0) for n in model]
    comps += [Component("optimizer", f"{tag}/{n}", _size(root / tag, n) or 0) for n in optim]
    problems = [] if model else ["no *model_states.pt"]
    ranks = sorted(int(m[1]) for n in optim if (m := re.search(r"zero_pp_rank_(\d+)_", n)))
    if ranks and ranks != list(range(len(ranks))):
        problems.append(f"optimizer partitions of ranks {ranks}: some are missing")
    return Candidate(tag, _name_step(tag), tuple(comps), tuple(problems), _verdict(problems))


def _megatron(root: Path, limit: int) -> ForeignScan:
    text = (
        (_read(root, "latest_checkpointed_iteration.txt", 4096) or b"")
        .decode("utf-8", "replace")
        .strip()
    )
    iters = sorted(
        (
            (int(m[1]), n)
            for n, regular in safeio.entries(root)[:_MAX_ENTRIES]
            if not regular and (m := _ITER_DIR.fullmatch(n))
        ),
        reverse=True,
    )
    cands = []
    for step, n in iters:
        files = [
            f"{sub}/{f}"
            for sub, regular in safeio.entries(root / n)
            if not regular
            for f in _files(root / n / sub)
        ]
        comps = tuple(
            Component("model_optim_rng", f"{n}/{f}", _size(root / n, f) or 0, step, "folder name")
            for f in files
        )
        problems = () if comps else ("no mp_rank_*/ files",)
        cands.append(Candidate(n, step, comps, problems, _verdict(list(problems))))
    wanted = int(text) if text.isdigit() else None
    label = f"iter_{wanted:07d}" if wanted is not None else None
    chosen = next((c for c in cands if c.step == wanted), None)
    notes: list[str] = []
    if wanted is None:
        verdict = "incomplete"
        notes.append("latest_checkpointed_iteration.txt holds no iteration number")
    elif chosen is None:
        verdict = "uncommitted"
        notes.append(f"the tracker names iteration {wanted}, which is not there")
    else:
        verdict, label = chosen.verdict, chosen.label
        newer = [c.label for c in cands if (c.step or -1) > wanted]
        if newer:
            notes.append("iterations newer than the tracker (never committed): " + ", ".join(newer))
    return ForeignScan(
        str(root),
        "megatron",
        tuple(cands),
        label,
        verdict,
        ("the tracker file names an existing iteration folder with files",),
        (
            "file contents: Megatron records no hash",
            "the step inside its files: they need unpickling",
        ),
        tuple(notes),
    )


# ---------------------------------------------------------------- Lightning and plain files


def _name_step(name: str) -> int | None:
    m = re.search(r"step[=_-]?(\d{1,18})", name) or _STEP_IN_NAME.search(Path(name).stem)
    return int(m[1]) if m else None


def _lightning(root: Path, names: Iterable[str], limit: int, label: str) -> ForeignScan:
    cands = []
    for name in sorted(names):
        obj, why = _torch_content(root, name, limit)
        step = _as_int(obj.get("global_step")) if isinstance(obj, dict) else None
        source = "key 'global_step'" if step is not None else ""
        problems: list[str] = []
        mixed = False
        if obj is None:
            problems.append(f"content not read: {why}")
        elif not isinstance(obj, dict) or "state_dict" not in obj:
            problems.append("not a Lightning checkpoint (no state_dict)")
        else:
            if "optimizer_states" not in obj:
                problems.append(
                    "no optimizer_states: a weights-only file, a resume restarts the optimizer"
                )
            named = re.search(r"step=(\d+)", name)
            if named and step is not None and int(named[1]) != step:
                problems.append(f"the file name says step {named[1]}, its content {step}")
                mixed = True
            opt_steps = {
                s
                for o in obj.get("optimizer_states") or []
                if (s := _optimizer_step(o)) is not None
            }
            if step is not None and opt_steps and opt_steps != {step}:
                problems.append(
                    f"optimizer state from step {sorted(opt_steps)}, the checkpoint from {step}"
                )
                mixed = True
        comp = Component("checkpoint", name, _size(root, name) or 0, step, source or why)
        cands.append(
            Candidate(name, step, (comp,), tuple(problems), _verdict(problems, mixed=mixed))
        )
    cands.sort(key=lambda c: (c.step if c.step is not None else -1, c.label), reverse=True)
    resume = (
        "last.ckpt"
        if any(c.label == "last.ckpt" for c in cands)
        else (cands[0].label if cands else None)
    )
    chosen = next((c for c in cands if c.label == resume), None)
    notes = []
    if chosen is not None and chosen.step is not None:
        newer = [c.label for c in cands if c.step is not None and c.step > chosen.step]
        if newer:
            notes.append(f"{resume} is older than " + ", ".join(newer))
    return ForeignScan(
        label,
        "lightning",
        tuple(cands),
        resume,
        chosen.verdict if chosen else "unknown",
        (
            "global_step against the file name and the optimizer's step count",
            "a full resume (optimizer_states present)",
        ),
        ("file contents: Lightning records no hash",),
        tuple(notes),
    )


def _torch_files(root: Path, names: list[str], limit: int) -> ForeignScan:
    by_component: dict[str, list[Component]] = {}
    for name in names:
        if not (name.endswith(_TORCH_SUFFIXES) or name.endswith(".safetensors")):
            continue
        stem = Path(name).stem
        base = re.sub(r"[_.=-]*(?:step|iter|epoch|ckpt)?[_.=-]*\d+$", "", stem) or stem
        step, source = _name_step(name), "file name"
        if step is None and not name.endswith(".safetensors"):
            obj, why = _torch_content(root, name, limit)
            step, source = _step_in(obj)
            if step is None:
                step, source = _optimizer_step(obj), "state[*]['step']"
            source = source if step is not None else why or "names no step"
        comp = Component(base, name, _size(root, name) or 0, step, source)
        by_component.setdefault(base, []).append(comp)
    newest = {
        base: max(comps, key=lambda c: (c.step if c.step is not None else -1, c.file))
        for base, comps in by_component.items()
    }
    steps = {c.step for c in newest.values() if c.step is not None}
    problems = []
    mixed = len(steps) > 1
    if mixed:
        problems.append(
            "each component's newest file is from another step: "
            + ", ".join(f"{b} {c.step}" for b, c in sorted(newest.items()))
        )
    common = (
        set.intersection(
            *({c.step for c in comps if c.step is not None} for comps in by_component.values())
        )
        if by_component
        else set()
    )
    notes: tuple[str, ...] = ()
    if mixed:
        notes = (
            f"the newest step every component holds: {max(common)}"
            if common
            else "no step that every component holds",
        )
    cand = Candidate(
        ".",
        max(steps) if len(steps) == 1 else None,
        tuple(newest.values()),
        tuple(problems),
        _verdict(problems, mixed=mixed),
    )
    return ForeignScan(
        str(root),
        "torch-files",
        (cand,),
        "each component's newest file",
        cand.verdict,
        ("the step of each component (its file name, else a step key of its content)",),
        ("file contents: torch.save records no hash", "a component whose file names no step"),
        notes,
    )


def to_json(s: ForeignScan) -> dict[str, Any]:
    """The JSON report of `fito inspect` for a foreign format."""
    return {
        "dir": s.root,
        "format": s.format,
        "verdict": s.verdict,
        "resume": s.resume,
        "checkpoints": [
            {
                "label": c.label,
                "step": c.step,
                "verdict": c.verdict,
                "problems": list(c.problems),
                "components": [
                    {
                        "name": k.name,
                        "file": k.file,
                        "bytes": k.size,
                        "step": k.step,
                        "step_from": k.step_from,
                    }
                    for k in c.components
                ],
            }
            for c in s.candidates
        ],
        "verified": list(s.verified),
        "unverifiable": list(s.unverifiable),
        "notes": list(s.notes),
    }


def to_text(s: ForeignScan) -> str:
    """The text report of `fito inspect` for a foreign format."""
    lines = [f"{s.root}: {s.format} checkpoint"]
    for c in s.candidates:
        step = "" if c.step is None else f" (step {c.step})"
        lines.append(f"  {c.label}{step}: {c.verdict}")
        for k in c.components:
            said = f", step {k.step} ({k.step_from})" if k.step is not None else ""
            lines.append(f"    {k.name}: {k.file}, {k.size} bytes{said}")
        lines += [f"    problem: {p}" for p in c.problems]
    lines += [f"  note: {n}" for n in s.notes]
    lines.append("  verified: " + "; ".join(s.verified) if s.verified else "  verified: nothing")
    lines.append("  not verifiable in this format: " + "; ".join(s.unverifiable))
    resume = s.resume or "nothing"
    lines.append(f"resume: {resume}: {s.verdict}")
    return "\n".join(lines)


def to_prometheus(s: ForeignScan) -> str:
    """Two gauges in Prometheus text format: whether a resume is consistent, and its step."""
    label = s.root.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    chosen = next((c for c in s.candidates if c.label == s.resume), None)
    lines = [
        "# HELP fito_checkpoint_resume_consistent 1 when what a resume takes is consistent",
        "# TYPE fito_checkpoint_resume_consistent gauge",
        f'fito_checkpoint_resume_consistent{{dir="{label}",format="{s.format}"}} {int(s.ok)}',
    ]
    if chosen is not None and chosen.step is not None:
        lines += [
            "# HELP fito_checkpoint_resume_step the step of the checkpoint a resume takes",
            "# TYPE fito_checkpoint_resume_step gauge",
            f'fito_checkpoint_resume_step{{dir="{label}",format="{s.format}"}} {chosen.step}',
        ]
    return "\n".join(lines) + "\n"
