"""The words training code uses for checkpoint components, markers, ranks and steps.

The rules never match a whole identifier against a list: they split it into lower-case
tokens (`raw_model` -> raw, model; `optimizerD` -> optimizer, d; `StepLR` -> step, lr) and
look the tokens up here, so `self.model`, `netG`, `opt_state` and `lr_scheduler` are all
recognised without being spelled out.
"""

from __future__ import annotations

import re
from functools import lru_cache

MODEL, OPTIMIZER, SCHEDULER, SCALER, RNG, DATA, STEP = (
    "model",
    "optimizer",
    "scheduler",
    "scaler",
    "rng",
    "data",
    "step",
)
#: a checkpoint-like value whose components are unknown (a parameter named `state`, ...)
WHOLE = "checkpoint"

_KIND_OF_TOKEN = {
    **dict.fromkeys(
        (
            "model",
            "models",
            "net",
            "nets",
            "netg",
            "netd",
            "network",
            "module",
            "encoder",
            "decoder",
            "generator",
            "discriminator",
            "unet",
            "vae",
            "transformer",
            "backbone",
            "classifier",
            "ema",
            "policy",
            "critic",
            "actor",
            "gpt",
            "student",
            "teacher",
            "weights",
            "llm",
            "lm",
        ),
        MODEL,
    ),
    **dict.fromkeys(
        ("optimizer", "optimizers", "optim", "optimiser", "opt", "optims", "adam", "adamw", "sgd"),
        OPTIMIZER,
    ),
    **dict.fromkeys(("scheduler", "schedulers", "sched", "lrs", "schedule"), SCHEDULER),
    **dict.fromkeys(("scaler", "scalers", "amp"), SCALER),
    **dict.fromkeys(("rng",), RNG),
    **dict.fromkeys(("sampler", "dataloader", "loader", "loaders"), DATA),
}
#: dictionary keys that name a step counter in a saved checkpoint
STEP_WORDS = frozenset(
    (
        "epoch",
        "epochs",
        "step",
        "steps",
        "iteration",
        "iterations",
        "iter",
        "iters",
        "updates",
        "update",
    )
)
#: a value that is a whole checkpoint although its parts are not visible
WHOLE_WORDS = frozenset(("checkpoint", "ckpt", "ckp", "snapshot", "state", "states"))
MARKER_WORDS = frozenset(
    (
        "latest",
        "done",
        "complete",
        "completed",
        "commit",
        "committed",
        "success",
        "succeeded",
        "marker",
        "tracker",
        "manifest",
        "finished",
        "ready",
        "valid",
        "meta",
        "metadata",
        "index",
        "ok",
    )
)
TMP_WORDS = frozenset(
    (
        "tmp",
        "temp",
        "temporary",
        "partial",
        "part",
        "incomplete",
        "staging",
        "inprogress",
        "wip",
        "tempfile",
        "mkstemp",
        "mkdtemp",
    )
)
TIME_WORDS = frozenset(("time", "timestamp", "now", "datetime", "strftime", "date"))
#: a path with one of these anywhere holds data for analysis, not a checkpoint
DUMP_DIR_WORDS = frozenset(
    (
        "grad",
        "grads",
        "gradient",
        "gradients",
        "activation",
        "activations",
        "embeddings",
        "features",
        "predictions",
        "cache",
    )
)
#: what a file holds, by its name, when it is a dump for analysis, not a checkpoint
NOT_CHECKPOINT_WORDS = frozenset(
    (
        "grad",
        "grads",
        "gradient",
        "gradients",
        "activation",
        "activations",
        "feature",
        "features",
        "embedding",
        "embeddings",
        "prediction",
        "predictions",
        "preds",
        "logits",
        "stats",
        "metrics",
        "debug",
        "dump",
        "cache",
        "cached",
        "vectors",
        "vocab",
        "dataset",
        "samples",
        "results",
        "log",
        "logs",
        "history",
        "losses",
        "eval",
        "evaluation",
        "summary",
    )
)
#: an unresolved call named like this may commit what was saved before it
COMMIT_CALL_WORDS = frozenset(
    (
        "commit",
        "finalize",
        "finalise",
        "publish",
        "tracker",
        "manifest",
        "latest",
        "complete",
        "done",
    )
)
CONFIG_CALLS = frozenset(
    (
        "parse_args",
        "parse_known_args",
        "get_args",
        "get_config",
        "argumentparser",
        "namespace",
        "load_config",
        "vars",
    )
)
BARRIER_CALLS = frozenset(
    (
        "barrier",
        "monitored_barrier",
        "wait_for_everyone",
        "rendezvous",
        "all_reduce",
        "all_gather",
        "all_gather_object",
        "broadcast",
        "broadcast_object_list",
        "sync_processes",
    )
)

_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


@lru_cache(maxsize=8192)
def tokens(name: str) -> tuple[str, ...]:
    """Lower-case word tokens of an identifier or dotted name."""
    return tuple(t.lower() for t in _SPLIT.findall(name))


def kind_of_name(name: str) -> str | None:
    """The component a name stands for (its last component word), or None; a bare
    `state_dict` is a model's, as in PyTorch's own examples."""
    if name.rsplit(".", 1)[-1] in ("state_dict", "model_state"):
        return MODEL
    found = None
    for t in tokens(name):
        kind = _KIND_OF_TOKEN.get(t)
        if kind is not None:
            found = kind
    return found


def kind_of_key(key: str) -> str | None:
    """The component a dictionary key names (`'optimizer'`, `'model_state_dict'`, `'epoch'`)."""
    toks = list(tokens(key))
    if any(t in STEP_WORDS for t in toks) and not any(t in _KIND_OF_TOKEN for t in toks):
        return STEP
    while toks and toks[-1] in ("state", "states", "dict", "dicts", "sd"):
        toks.pop()
    if not toks:
        return MODEL if key == "state_dict" else None
    for t in reversed(toks):  # `optim_g`, `optimizer_d`: the component word, then a suffix
        kind = _KIND_OF_TOKEN.get(t)
        if kind is not None:
            return kind
    return None


def is_scheduler_class(name: str) -> bool:
    """`StepLR`, `CosineAnnealingLR`, `ReduceLROnPlateau`, `get_linear_schedule_with_warmup`."""
    last = name.rsplit(".", 1)[-1]
    return bool(re.search(r"LR$|LROnPlateau$|LRScheduler$", last)) or "schedule" in last.lower()


def is_optimizer_class(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last[:1].isupper() and kind_of_name(last) == OPTIMIZER


def has_word(name: str, words: frozenset[str]) -> bool:
    return any(t in words for t in tokens(name))


def is_rank_name(name: str) -> bool:
    """Names that differ between the processes of a distributed job."""
    toks = tokens(name)
    return "rank" in toks or "ordinal" in toks or toks[-2:] == ("process", "index")


def is_main_process_name(name: str) -> bool:
    """`is_main_process`, `master_process`, `trainer.is_global_zero`, `args.should_save`."""
    toks = tokens(name)
    if "master" in toks or "chief" in toks:
        return True
    if "main" in toks and ("process" in toks or "is" in toks or "rank" in toks):
        return True
    if "zero" in toks and any(t in toks for t in ("global", "rank", "process", "world")):
        return True
    return toks[-2:] == ("should", "save")


def basename(text: str) -> str:
    return text.rstrip("/").rsplit("/", 1)[-1]


def is_marker_path(text: str) -> bool:
    """A path whose last component names a commit or done marker (`latest`, `COMPLETE`, ...)."""
    return has_word(basename(text), MARKER_WORDS)
