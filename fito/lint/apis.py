"""Which calls matter to a checkpoint protocol, by (import-resolved) name.

`classify` maps a call to a tag; the walker decides what each tag means for values and
events. Library entry points that manage a whole checkpoint themselves (Lightning's
`trainer.save_checkpoint`, `accelerator.save_state`, DeepSpeed's `save_checkpoint`,
`torch.distributed.checkpoint.save`) are deliberately not saves: the linter judges the
protocol a script writes by hand, not the libraries it calls.
"""

from __future__ import annotations

from fito.lint import vocab

SAVE, SAVE_RANK0, SAFETENSORS, SAVE_PRETRAINED, DUMP, DCP_SAVE, ASYNC_SAVE = (
    "save",
    "save-rank0",
    "safetensors",
    "save-pretrained",
    "dump",
    "dcp-save",
    "async-save",
)
LOAD, FROM_PRETRAINED, LOAD_STATE_DICT, SET_STATE_DICT, LIB_RESTORE = (
    "load",
    "from-pretrained",
    "load-state-dict",
    "set-state-dict",
    "library-restore",
)
OPEN, WRITE_PATH, SYMLINK, RENAME, FSYNC, BARRIER = (
    "open",
    "write-path",
    "symlink",
    "rename",
    "fsync",
    "barrier",
)
THREAD, SUBMIT, WAIT, WAIT_FN, EXECUTOR, TASK = (
    "thread",
    "submit",
    "wait",
    "wait-fn",
    "executor",
    "task",
)
JOIN_PATH, TRANSPARENT, DIRNAME, LISTING, SORTED, MAX, TEMPFILE = (
    "join-path",
    "transparent",
    "dirname",
    "listing",
    "sorted",
    "max",
    "tempfile",
)
RNG_RESTORE, COPY = "rng-restore", "copy"
STATE_DICT, RNG_STATE, DICT, UPDATE, APPEND, FORMAT, GET = (
    "state-dict",
    "rng-state",
    "dict",
    "update",
    "append",
    "format",
    "get",
)

#: tags of calls that write checkpoint state (a background task that makes one saves)
SAVING = frozenset((SAVE, SAVE_RANK0, SAFETENSORS, SAVE_PRETRAINED, ASYNC_SAVE, DCP_SAVE))
#: tags the linter has anything to say about (a helper holding none is not inlined)
RELEVANT = SAVING | frozenset(
    (
        DUMP,
        OPEN,
        WRITE_PATH,
        SYMLINK,
        RENAME,
        FSYNC,
        BARRIER,
        LOAD,
        FROM_PRETRAINED,
        LOAD_STATE_DICT,
        SET_STATE_DICT,
        THREAD,
        SUBMIT,
        WAIT,
        WAIT_FN,
        DCP_SAVE,
        LISTING,
        TASK,
        RNG_RESTORE,
    )
)

_BY_QUALNAME = {
    "torch.save": SAVE,
    "torch_xla.core.xla_model.save": SAVE_RANK0,
    "safetensors.torch.save_file": SAFETENSORS,
    "safetensors.torch.save_model": SAFETENSORS,
    "json.dump": DUMP,
    "pickle.dump": DUMP,
    "yaml.dump": DUMP,
    "yaml.safe_dump": DUMP,
    "torch.distributed.checkpoint.save": DCP_SAVE,
    "torch.distributed.checkpoint.save_state_dict": DCP_SAVE,
    "torch.distributed.checkpoint.async_save": ASYNC_SAVE,
    "torch.load": LOAD,
    "safetensors.torch.load_file": LOAD,
    "safetensors.torch.load": LOAD,
    "json.load": LOAD,
    "pickle.load": LOAD,
    "torch.distributed.checkpoint.state_dict.set_model_state_dict": SET_STATE_DICT,
    "torch.distributed.checkpoint.state_dict.set_optimizer_state_dict": SET_STATE_DICT,
    "open": OPEN,
    "io.open": OPEN,
    "builtins.open": OPEN,
    "os.symlink": SYMLINK,
    "os.link": SYMLINK,
    "os.rename": RENAME,
    "os.replace": RENAME,
    "os.renames": RENAME,
    "shutil.move": RENAME,
    "os.fsync": FSYNC,
    "os.fdatasync": FSYNC,
    "threading.Thread": THREAD,
    "multiprocessing.Process": THREAD,
    "torch.multiprocessing.Process": THREAD,
    "concurrent.futures.wait": WAIT_FN,
    "asyncio.gather": WAIT_FN,
    "asyncio.wait": WAIT_FN,
    "concurrent.futures.ThreadPoolExecutor": EXECUTOR,
    "concurrent.futures.ProcessPoolExecutor": EXECUTOR,
    "multiprocessing.Pool": EXECUTOR,
    "multiprocessing.pool.ThreadPool": EXECUTOR,
    "asyncio.create_task": TASK,
    "asyncio.ensure_future": TASK,
    "os.path.join": JOIN_PATH,
    "posixpath.join": JOIN_PATH,
    "pathlib.Path": JOIN_PATH,
    "pathlib.PurePath": JOIN_PATH,
    "str": TRANSPARENT,
    "os.fspath": TRANSPARENT,
    "os.fdopen": TRANSPARENT,
    "os.path.abspath": TRANSPARENT,
    "os.path.realpath": TRANSPARENT,
    "os.path.expanduser": TRANSPARENT,
    "os.path.normpath": TRANSPARENT,
    "copy.deepcopy": COPY,
    "copy.copy": TRANSPARENT,
    "list": TRANSPARENT,
    "filter": TRANSPARENT,
    "reversed": TRANSPARENT,
    "os.path.dirname": DIRNAME,
    "glob.glob": LISTING,
    "glob.iglob": LISTING,
    "os.listdir": LISTING,
    "os.scandir": LISTING,
    "sorted": SORTED,
    "natsort.natsorted": SORTED,
    "max": MAX,
    "dict": DICT,
    "torch.get_rng_state": RNG_STATE,
    "torch.cuda.get_rng_state": RNG_STATE,
    "torch.cuda.get_rng_state_all": RNG_STATE,
    "random.getstate": RNG_STATE,
    "numpy.random.get_state": RNG_STATE,
    "fito.runtime.capture_rng": RNG_STATE,
    "torch.set_rng_state": RNG_RESTORE,
    "torch.cuda.set_rng_state": RNG_RESTORE,
    "torch.cuda.set_rng_state_all": RNG_RESTORE,
    "random.setstate": RNG_RESTORE,
    "numpy.random.set_state": RNG_RESTORE,
    "fito.runtime.restore_rng": RNG_RESTORE,
}
_BY_METHOD = {
    "state_dict": STATE_DICT,
    "load_state_dict": LOAD_STATE_DICT,
    "save_pretrained": SAVE_PRETRAINED,
    "from_pretrained": FROM_PRETRAINED,
    "write_text": WRITE_PATH,
    "write_bytes": WRITE_PATH,
    "touch": WRITE_PATH,
    "symlink_to": WRITE_PATH,
    "fsync": FSYNC,
    "result": WAIT,
    "wait_until_finished": WAIT,
    "shutdown": WAIT,
    "submit": SUBMIT,
    "apply_async": SUBMIT,
    "joinpath": JOIN_PATH,
    "format": FORMAT,
    "update": UPDATE,
    "append": APPEND,
    "get": GET,
    "resolve": TRANSPARENT,
    "absolute": TRANSPARENT,
    "expanduser": TRANSPARENT,
    "as_posix": TRANSPARENT,
    "to": COPY,
    "cpu": COPY,
    "cuda": TRANSPARENT,
    "fileno": TRANSPARENT,
    "copy": TRANSPARENT,
    "items": TRANSPARENT,
    "values": TRANSPARENT,
    "detach": TRANSPARENT,
    "clone": COPY,
    "glob": LISTING,
    "rglob": LISTING,
    "iterdir": LISTING,
    "load_state": LIB_RESTORE,
    "load_checkpoint": LIB_RESTORE,
    "resume_checkpoint": LIB_RESTORE,
    "load_weights": LIB_RESTORE,
    "load_model": LIB_RESTORE,
    "load_pretrained": LIB_RESTORE,
}
_TEMPFILE = frozenset(
    ("mkstemp", "mkdtemp", "NamedTemporaryFile", "TemporaryDirectory", "mktemp", "gettempdir")
)
_LIBRARIES = frozenset(
    (
        "torch",
        "lightning",
        "pytorch_lightning",
        "transformers",
        "accelerate",
        "deepspeed",
        "safetensors",
        "torch_xla",
        "fairscale",
        "timm",
        "megatron",
        "fairseq",
        "composer",
        "apex",
        "torchvision",
    )
)


def is_training_import(module: str) -> bool:
    """Files that import none of these are not training code: the linter skips them."""
    return module.split(".", 1)[0] in _LIBRARIES


def is_known_function(qual: str | None) -> bool:
    """A module-level function of the table (`os.path.abspath`), not a method of a value."""
    return qual in _BY_QUALNAME


def classify(qual: str | None, attr: str | None, nargs: int, receiver: str | None) -> str | None:
    """The tag of a call: `qual` its import-resolved dotted name, `attr` its last part."""
    if qual is not None:
        tag = _BY_QUALNAME.get(qual)
        if tag is not None:
            return tag
        if qual.startswith("tempfile.") and qual.split(".")[-1] in _TEMPFILE:
            return TEMPFILE
        if qual.endswith("save_on_master"):
            return SAVE_RANK0
        if qual.endswith(".async_save"):
            return ASYNC_SAVE
        if qual.endswith((".Thread", ".Process")) and ("thread" in qual or "process" in qual):
            return THREAD
        if qual.endswith(("PoolExecutor", ".Pool", "ThreadPool")):
            return EXECUTOR
    if attr is None:
        return None
    return _method_tag(attr, nargs, receiver)


def _method_tag(attr: str, nargs: int, receiver: str | None) -> str | None:
    recv_tokens = vocab.tokens(receiver or "")
    if (
        attr in vocab.BARRIER_CALLS
        or attr.endswith("barrier")
        or (attr == "synchronize" and "cuda" not in recv_tokens)
    ):  # detectron2's comm.synchronize
        return BARRIER
    if attr == "save" and "accelerator" in recv_tokens:
        return SAVE_RANK0
    if attr == "save_model" and "accelerator" in recv_tokens:
        return SAVE_PRETRAINED
    if attr in ("rename", "replace") and nargs == 1:
        return RENAME
    if attr in ("open", "BlobFile", "GFile") and receiver is not None:
        return OPEN  # fsspec, blobfile, tf.io.gfile, multi-storage clients: open(path, mode)
    if attr in ("join", "wait") and nargs == 0:
        return WAIT
    if attr == "join" and nargs >= 2:
        return JOIN_PATH  # bf.join(dir, name), fs.join(...): `sep.join(items)` has one argument
    if attr in ("set_model_state_dict", "set_optimizer_state_dict"):
        return SET_STATE_DICT
    return _BY_METHOD.get(attr)
