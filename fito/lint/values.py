"""What the linter knows about a Python value: a small abstract domain, joined by union.

A value is followed "a little way": through assignments, f-strings, `os.path.join`, dict
literals and item assignments, and the returns of helpers in the same file. What it records
is what the rules ask: how it renders as a path, which checkpoint components it holds, which
"latest file" selections and which loads it derives from.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from fito.lint import vocab

#: a source position (line, column, end line, end column) as `ast` gives it
Site = tuple[int, int, int, int]

#: the prefix of a loop variable's name: `for rank in range(n)` is not a process rank
LOOP = "loop:"
#: COPIED: a copy of the tensors (`.cpu()`, `.clone()`, `copy.deepcopy`), not the live ones
#: ENTRY: an entry of a loaded checkpoint (`ckpt["model"]`), not the whole of it
#: LOADED: the very object `torch.load` (or safetensors' loader) returned
COPIED, ENTRY, LOADED = "copied", "entry", "loaded"
TMP, LISTING, CONFIG, BUFFER, FILE, EXECUTOR, SERIAL, NUMBER, INFERRED = (
    "tmp",
    "listing",
    "config",
    "buffer",
    "file",
    "executor",
    "serial",
    "number",
    "inferred",
)


@dataclass(frozen=True, slots=True)
class Value:
    text: str = ""  # rendered as a path; unknown parts as {name}
    kinds: frozenset[str] = frozenset()  # checkpoint components held (vocab kinds)
    keys: frozenset[str] = frozenset()  # keys of a dictionary assembled for saving
    names: frozenset[str] = frozenset()  # dotted names the value was computed from
    selections: frozenset[Site] = frozenset()  # "latest file" selections it derives from
    loads: frozenset[Site] = frozenset()  # torch.load (and kin) calls it derives from
    flags: frozenset[str] = frozenset()  # TMP, LISTING, CONFIG, ...
    aliases: frozenset[str] = frozenset()  # handle names (threads, futures) it stands for

    @property
    def is_rank_dependent(self) -> bool:
        return any(vocab.is_rank_name(n) for n in self.names if not n.startswith(LOOP))

    @property
    def is_versioned(self) -> bool:
        """Built from a step, epoch or time: each save gets a new name."""
        words = vocab.STEP_WORDS | vocab.TIME_WORDS
        return any(vocab.has_word(n, words) for n in self.names) or vocab.has_word(
            self.text, vocab.STEP_WORDS
        )

    @property
    def is_tmp(self) -> bool:
        return (
            TMP in self.flags
            or vocab.has_word(vocab.basename(self.text), vocab.TMP_WORDS)
            or any(vocab.has_word(seg, vocab.TMP_WORDS) for seg in self.text.split("/")[:-1])
        )

    def with_text(self, text: str) -> Value:
        return Value(
            text,
            self.kinds,
            self.keys,
            self.names,
            self.selections,
            self.loads,
            self.flags,
            self.aliases,
        )

    def plus(
        self,
        *,
        kinds: frozenset[str] = frozenset(),
        keys: frozenset[str] = frozenset(),
        names: frozenset[str] = frozenset(),
        flags: frozenset[str] = frozenset(),
        aliases: frozenset[str] = frozenset(),
    ) -> Value:
        """This value with extra members in the given set fields."""
        return Value(
            self.text,
            self.kinds | kinds,
            self.keys | keys,
            self.names | names,
            self.selections,
            self.loads,
            self.flags | flags,
            self.aliases | aliases,
        )


UNKNOWN = Value()


def join(values: list[Value] | tuple[Value, ...], text: str = "") -> Value:
    """Everything the parts carry; the text is given by the caller."""
    if not values:
        return Value(text=text)
    if len(values) == 1:
        return values[0].with_text(text) if text != values[0].text else values[0]
    return Value(
        text=text,
        kinds=frozenset().union(*(v.kinds for v in values)),
        keys=frozenset().union(*(v.keys for v in values)),
        names=frozenset().union(*(v.names for v in values)),
        selections=frozenset().union(*(v.selections for v in values)),
        loads=frozenset().union(*(v.loads for v in values)),
        flags=frozenset().union(*(v.flags for v in values))
        - (
            {LISTING, EXECUTOR, SERIAL, NUMBER}
            if not all(NUMBER in v.flags for v in values)
            else {LISTING, EXECUTOR, SERIAL}
        ),
        aliases=frozenset().union(*(v.aliases for v in values)),
    )


@lru_cache(maxsize=4096)
def named(name: str) -> Value:
    """An unknown value read from a name: rendered `{name}`, kind guessed from the name."""
    kind = vocab.kind_of_name(name)
    kinds = frozenset((kind,)) if kind else frozenset()
    if not kinds and vocab.has_word(name.rsplit(".", 1)[-1], vocab.WHOLE_WORDS):
        kinds = frozenset((vocab.WHOLE,))
    return Value(
        text="{" + name + "}",
        kinds=kinds,
        names=frozenset((name,)),
        aliases=frozenset((name.rsplit(".", 1)[-1],)),
    )


def component_kinds(v: Value) -> frozenset[str]:
    """The components a saved value holds, without the `whole checkpoint` guess."""
    return v.kinds - {vocab.WHOLE}


def is_checkpoint_like(v: Value) -> bool:
    return bool(v.kinds - {vocab.STEP}) and CONFIG not in v.flags


def is_analysis_dump(path: Value) -> bool:
    """Gradients, features or caches saved for analysis: not a checkpoint anyone resumes."""
    return vocab.has_word(vocab.basename(path.text), vocab.NOT_CHECKPOINT_WORDS) or vocab.has_word(
        path.text, vocab.DUMP_DIR_WORDS
    )


def normal_form(text: str) -> str:
    """A path with each component-named segment replaced by `{C}` (model.pt, optim.pt -> {C})."""
    out = []
    for seg in text.split("/"):
        if any(vocab.kind_of_name(t) for t in vocab.tokens(seg)):
            out.append("{C}")
        else:
            out.append(seg)
    return "/".join(out)
