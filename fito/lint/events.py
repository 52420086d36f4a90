"""The events a training script's checkpoint protocol is made of, in program order.

The walker (`fito.lint.walker`) turns each entry point of a file (module code, and every
function no other function of the file calls) into a `Trace`: the saves, writes, renames,
fsyncs, barriers, loads, restores and background saves it performs, helpers of the same file
inlined. Each event carries its `Context`: the branches it sits in (so that two events on the
two sides of an `if` are never taken for one protocol), the loops around it, and whether only
rank 0 runs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from fito.lint.values import Site, Value

#: one branch taken: (id of the `if`/`try` node, which arm)
Branch = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Context:
    branches: tuple[Branch, ...] = ()
    loops: tuple[int, ...] = ()  # ids of the enclosing loop statements, outermost first
    rank0: bool = False  # only rank 0 (the main process) gets here
    calls: tuple[Site, ...] = ()  # call sites of the inlined helpers, outermost first
    #: the guards that can skip the event without a word: (id of the `if`/`try`, its line,
    #: what it is): an existence test (`if os.path.isfile(p):`, `if "optimizer" in ckpt:`),
    #: a `try` whose handler goes on, an early `return` (with a warning, or after such a test)
    skips: tuple[tuple[int, int, str], ...] = ()
    #: a subset of the ranks gets here (`if dp_rank == 0:`, `if tp_rank == 0:`): not rank 0
    #: alone, not every rank
    subset: bool = False
    frame: int = 0  # which call of which function (one number per inlined call in a trace)

    def compatible(self, other: Context) -> bool:
        """Both can run in one execution: no `if` is taken on two different arms."""
        mine = dict(self.branches)
        return all(mine.get(node, arm) == arm for node, arm in other.branches)


@dataclass(frozen=True, slots=True)
class Event:
    site: Site
    ctx: Context


@dataclass(frozen=True, slots=True)
class Save(Event):
    """A checkpoint-writing call: `torch.save`, `save_pretrained`, `json.dump`, ..."""

    api: str
    payload: Value
    path: Value
    atomic_api: bool = False  # the API writes through a temporary file itself

    @property
    def is_torch_like(self) -> bool:
        return self.api in ("torch.save", "safetensors")


@dataclass(frozen=True, slots=True)
class Write(Event):
    """A file opened for writing, `Path.write_text`, `touch`, a symlink: a possible marker."""

    path: Value


@dataclass(frozen=True, slots=True)
class Rename(Event):
    src: Value
    dst: Value


@dataclass(frozen=True, slots=True)
class Fsync(Event):
    target: Value


@dataclass(frozen=True, slots=True)
class Barrier(Event):
    api: str


@dataclass(frozen=True, slots=True)
class Load(Event):
    """`torch.load(path)` and kin; `ident` names the loaded value (in `Value.loads`)."""

    path: Value
    ident: Site


@dataclass(frozen=True, slots=True)
class Restore(Event):
    """`x.load_state_dict(source)`: the component `kind` restored from `source`."""

    kind: str
    source: Value
    strict: bool = True  # `strict=False`: keys that do not match are dropped without a word


@dataclass(frozen=True, slots=True)
class KeyRead(Event):
    """`ckpt['epoch']` or `ckpt.get('epoch')` on a loaded value; `bound`: a variable assigned
    from a loaded or selected value (`start_epoch = ckpt['epoch'] + 1`), `key` its name."""

    key: str
    source: Value
    bound: bool = False


@dataclass(frozen=True, slots=True)
class Compare(Event):
    """A comparison; `selections` are the "latest" selections its operands derive from."""

    selections: frozenset[Site]


@dataclass(frozen=True, slots=True)
class Async(Event):
    """A save started in the background: a thread, a process, a future, `async_save`."""

    api: str
    handles: frozenset[str]  # names a wait may use for it (its variable, its container)
    must_wait: bool  # the exit does not wait for it (daemon, a DCP future)
    serial: bool = False  # a one-worker executor: saves never overlap
    escaped: bool = False  # the handle is returned or passed on: the receiver waits
    live: bool = False  # it writes the model's or optimizer's own tensors, not a copy
    held: bool = False  # its handle is kept in an object of another module (`self._future =
    # ...` in a checkpointer the file calls), whose other methods may wait for it


@dataclass(frozen=True, slots=True)
class Mutate(Event):
    """`optimizer.step()` (or a scaler's, an engine's): the parameters and moments change in
    place."""


@dataclass(frozen=True, slots=True)
class Wait(Event):
    """`t.join()`, `f.result()`, `wait(fs)`, `executor.shutdown()`, the end of a `with`."""

    handles: frozenset[str]


E = TypeVar("E", bound=Event)


@dataclass(frozen=True, slots=True)
class Trace:
    """The events of one entry point, in program order."""

    root: str
    events: tuple[Event, ...]
    loop_ends: dict[int, int] = field(default_factory=dict)  # loop id -> index after its body

    def of(self, kind: type[E]) -> list[tuple[int, E]]:
        """The events of one kind, with their indices."""
        return [(i, e) for i, e in enumerate(self.events) if isinstance(e, kind)]
