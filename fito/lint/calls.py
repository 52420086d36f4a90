"""Values and events of calls: saves, loads, renames, fsyncs, barriers, background saves,
and the path builders (`os.path.join`, `Path`, `str.format`) that real code wraps them in."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from fito.lint import apis, vocab
from fito.lint.events import (
    Async,
    Barrier,
    Fsync,
    Load,
    Mutate,
    Rename,
    Restore,
    Save,
    Wait,
    Write,
)
from fito.lint.exprs import Evaluator, copied, site_of
from fito.lint.index import FunctionNode, ModuleIndex, dotted
from fito.lint.values import (
    BUFFER,
    CONFIG,
    COPIED,
    EXECUTOR,
    FILE,
    INFERRED,
    LISTING,
    LOADED,
    SERIAL,
    TMP,
    UNKNOWN,
    Value,
    join,
)

_FORMAT_FIELD = re.compile(r"\{[^{}]*\}")
_RESTORE_ORDER = (
    vocab.OPTIMIZER,
    vocab.SCHEDULER,
    vocab.SCALER,
    vocab.MODEL,
    vocab.RNG,
    vocab.DATA,
)
_STEPPED = frozenset((vocab.OPTIMIZER, vocab.SCALER))
_EXISTS = frozenset(("exists", "isfile", "is_file", "lexists", "isdir", "is_dir"))
_LIVE = frozenset((vocab.MODEL, vocab.OPTIMIZER))
_NOT_MODELS = frozenset(("tokenizer", "config", "processor", "extractor", "feature", "vocab"))
_BUILDERS = frozenset(
    (
        "get",
        "build",
        "create",
        "make",
        "init",
        "load",
        "unwrap",
        "wrap",
        "prepare",
        "setup",
        "configure",
    )
)
Args = list[Value]
Kwargs = dict[str, Value]


def async_indices(v: Value) -> list[int]:
    """Every background save a value may be the handle of (`ret` assigned on two arms)."""
    return sorted(int(f[6:]) for f in v.flags if f.startswith("async:"))


class Calls(Evaluator):
    """Evaluator with calls; `inline` (in the walker) runs helpers of the same file."""

    packed: dict[str, list[Value]]
    packed_kw: dict[str, dict[str, Value]]

    def inline(
        self,
        node: ast.Call,
        fn: FunctionNode,
        args: Args,
        kw: Kwargs,
        bound_self: Value | None,
        cls: str | None,
    ) -> Value | None:
        raise NotImplementedError

    def resolve_callee(
        self, func: ast.expr, recv: Value | None
    ) -> tuple[FunctionNode, str | None] | str | None:
        raise NotImplementedError

    def index_of(self, fn: FunctionNode) -> ModuleIndex:
        raise NotImplementedError

    def v_Call(self, node: ast.Call) -> Value:
        func = node.func
        recv = self.value(func.value) if isinstance(func, ast.Attribute) else None
        args, kw = self.arguments(node)
        target = self.resolve_callee(func, recv)
        if isinstance(target, str):  # a class of this file: its constructor
            return self.construct(node, target, args, kw)
        if target is not None:
            out = self.inline(node, target[0], args, kw, recv, target[1])
            if out is not None:
                return out
        qual = self.index.qualify(func)
        attr = (
            func.attr
            if isinstance(func, ast.Attribute)
            else func.id
            if isinstance(func, ast.Name)
            else None
        )
        receiver = dotted(func.value) if isinstance(func, ast.Attribute) else None
        tag = apis.classify(qual, attr, len(node.args), receiver)
        if tag == apis.LOAD_STATE_DICT and receiver in self.index.imports:
            tag = apis.LOAD  # `dist_util.load_state_dict(path)`: a module's loader
        handler = getattr(self, "c_" + tag.replace("-", "_"), None) if tag else None
        if handler is not None:
            return handler(node, args, kw, recv or UNKNOWN)
        name = qual or attr or "?"
        if attr in _EXISTS:  # `os.path.exists(join(d, "COMPLETE"))`: a marker is read
            probed = args[0] if args else (recv or UNKNOWN)
            if vocab.is_marker_path(probed.text):
                self.emit(Load(site_of(node), self.ctx, probed, self.identity(node)))
        if attr == "step" and recv is not None and recv.kinds & _STEPPED:
            self.emit(Mutate(site_of(node), self.ctx))  # the weights and moments change
        if vocab.has_word(name.rsplit(".", 1)[-1], vocab.COMMIT_CALL_WORDS):
            # `finalize_checkpoint(step)` from another module may well write a commit marker
            self.emit(
                Write(
                    site_of(node),
                    self.ctx,
                    Value(text="{" + name + "()}", flags=frozenset((INFERRED,))),
                )
            )
        return self.unknown_call(name, args, recv)

    def arguments(self, node: ast.Call) -> tuple[Args, Kwargs]:
        """The values of a call's arguments; `*args` and `**kwargs` of the helper being
        inlined are unpacked into what its caller passed."""
        args: Args = []
        for a in node.args:
            if (
                isinstance(a, ast.Starred)
                and isinstance(a.value, ast.Name)
                and "*" + a.value.id in self.packed
            ):
                args.extend(self.packed["*" + a.value.id])
            else:
                args.append(self.value(a.value if isinstance(a, ast.Starred) else a))
        kw: Kwargs = {}
        for k in node.keywords:
            if (
                k.arg is None
                and isinstance(k.value, ast.Name)
                and "**" + k.value.id in self.packed_kw
            ):
                kw.update(self.packed_kw["**" + k.value.id])
            else:
                kw[k.arg or "**"] = self.value(k.value)
        return args, kw

    def construct(self, node: ast.Call, cls: str, args: Args, kw: Kwargs) -> Value:
        """`Saver(...)`: a class of this file, or `Name@path` of another module's."""
        name, _, path = cls.partition("@")
        index = self.module_index(path) if path else self.index
        init = index.method(name, "__init__")
        instance = Value(text="{" + name + "()}", flags=frozenset(("class:" + cls,)))
        if init is not None and id(init) in index.relevant:
            if index is not self.index:
                if not self.helper_size_ok(init):
                    return instance
                self.adopt(init, index)
            self.inline(node, init, args, kw, instance, name)
        return instance

    def module_index(self, path: str) -> ModuleIndex:
        raise NotImplementedError

    def adopt(self, fn: FunctionNode, index: ModuleIndex) -> None:
        raise NotImplementedError

    def helper_size_ok(self, fn: FunctionNode) -> bool:
        raise NotImplementedError

    def escape(self, v: Value) -> None:
        """A background save's handle handed to a caller or another function: theirs to wait."""
        for i in async_indices(v):
            e = self.events[i] if 0 <= i < len(self.events) else None
            if isinstance(e, Async):
                self.events[i] = replace(e, escaped=True)

    def unknown_call(self, name: str, args: Args, recv: Value | None) -> Value:
        for a in args:
            self.escape(a)
        parts = args + ([recv] if recv is not None else [])
        base = join(parts)
        last = name.rsplit(".", 1)[-1]
        kinds: frozenset[str] = frozenset()
        flags: frozenset[str] = frozenset()
        if vocab.is_scheduler_class(last):
            kinds = frozenset((vocab.SCHEDULER,))
        elif vocab.is_optimizer_class(last):
            kinds = frozenset((vocab.OPTIMIZER,))
        elif last.lower() in vocab.CONFIG_CALLS:
            flags = frozenset((CONFIG,))
        elif last[:1].isupper() or vocab.tokens(last)[:1] and vocab.tokens(last)[0] in _BUILDERS:
            kind = vocab.kind_of_name(last)
            kinds = frozenset((kind,)) if kind else frozenset()
        return Value(
            text="{" + last + "()}",
            kinds=kinds,
            names=base.names | {name},
            selections=base.selections,
            loads=base.loads,
            flags=flags,
        )

    # ------------------------------------------------------------------ writes
    def _save(
        self, node: ast.Call, api: str, payload: Value, path: Value, rank0: bool = False
    ) -> Value:
        ctx = replace(self.ctx, rank0=True) if rank0 else self.ctx
        self.emit(Save(site_of(node), ctx, api, payload, path))
        return UNKNOWN

    def c_save(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        return self._save(node, "torch.save", _arg(args, kw, 0, "obj"), _arg(args, kw, 1, "f"))

    def c_save_rank0(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        return self._save(
            node,
            "torch.save",
            _arg(args, kw, 0, "obj", "data"),
            _arg(args, kw, 1, "f", "file_or_path", "path"),
            rank0=True,
        )

    def c_safetensors(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        return self._save(
            node,
            "safetensors",
            _arg(args, kw, 0, "tensors", "model"),
            _arg(args, kw, 1, "filename"),
        )

    def c_save_pretrained(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "save_model":
            return self._save(
                node,
                "save_pretrained",
                _arg(args, kw, 0, "model"),
                _arg(args, kw, 1, "save_directory"),
                rank0=True,
            )
        if vocab.has_word(dotted(node.func) or "", _NOT_MODELS):
            return UNKNOWN
        return self._save(node, "save_pretrained", recv, _arg(args, kw, 0, "save_directory"))

    def c_dump(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        return self._save(node, "dump", _arg(args, kw, 0, "obj"), _arg(args, kw, 1, "fp", "file"))

    def c_open(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        path = _arg(args, kw, 0, "file")
        mode_node = (
            node.args[1]
            if len(node.args) > 1
            else next((k.value for k in node.keywords if k.arg == "mode"), None)
        )
        mode = mode_node.value if isinstance(mode_node, ast.Constant) else "r"
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            self.emit(Write(site_of(node), self.ctx, path))
            return path.plus(flags=frozenset((FILE,)))
        ident = self.identity(node)  # a file read back: what is read from it is loaded
        self.emit(Load(site_of(node), self.ctx, path, ident))
        return replace(path, flags=path.flags | {FILE}, loads=path.loads | {ident})

    def c_write_path(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        self.emit(Write(site_of(node), self.ctx, recv))
        return UNKNOWN

    def c_symlink(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        self.emit(Write(site_of(node), self.ctx, _arg(args, kw, 1, "dst")))
        return UNKNOWN

    def c_rename(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        if isinstance(node.func, ast.Attribute) and self.index.qualify(node.func) not in (
            "os.rename",
            "os.replace",
            "os.renames",
            "shutil.move",
        ):
            src, dst = recv, _arg(args, kw, 0, "target")
        else:
            src, dst = _arg(args, kw, 0, "src"), _arg(args, kw, 1, "dst")
        self.emit(Rename(site_of(node), self.ctx, src, dst))
        return dst

    def c_fsync(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        target = args[0] if args else recv
        self.emit(Fsync(site_of(node), self.ctx, target))
        return UNKNOWN

    def c_barrier(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        self.emit(Barrier(site_of(node), self.ctx, dotted(node.func) or "barrier"))
        return UNKNOWN

    def c_dcp_save(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        self.emit(Barrier(site_of(node), self.ctx, "torch.distributed.checkpoint.save"))
        return UNKNOWN

    # ------------------------------------------------------------------ loads and restores
    def c_load(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        path = _arg(args, kw, 0, "f", "filename")
        ident = self.identity(node)
        self.emit(Load(site_of(node), self.ctx, path, ident))
        qual = self.index.qualify(node.func) or ""
        whole = qual == "torch.load" or qual.startswith("safetensors.")
        return Value(
            text=path.text,
            names=path.names,
            selections=path.selections,
            loads=frozenset((ident,)),
            flags=frozenset((LOADED,)) if whole else frozenset(),
        )

    def c_from_pretrained(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        out = self.c_load(node, args, kw, recv)
        if vocab.has_word(dotted(node.func) or "", _NOT_MODELS):
            return UNKNOWN
        self.emit(Restore(site_of(node), self.ctx, vocab.MODEL, out))
        return out.plus(kinds=frozenset((vocab.MODEL,)))

    def c_load_state_dict(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        kind = next((k for k in _RESTORE_ORDER if k in recv.kinds), "unknown")
        strict = not any(
            k.arg == "strict" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in node.keywords
        ) and not (
            len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value is False
        )
        source = _arg(args, kw, 0, "state_dict")
        self.emit(Restore(site_of(node), self.ctx, kind, source, strict))
        return UNKNOWN

    def c_set_state_dict(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        name = dotted(node.func) or ""
        if name.endswith("set_optimizer_state_dict"):
            source = _arg(args, kw, 2, "optim_state_dict")
            self.emit(Restore(site_of(node), self.ctx, vocab.OPTIMIZER, source))
        else:
            self.emit(
                Restore(site_of(node), self.ctx, vocab.MODEL, _arg(args, kw, 1, "model_state_dict"))
            )
        return UNKNOWN

    def c_library_restore(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        self.emit(Restore(site_of(node), self.ctx, "*", _arg(args, kw, 0, "input_dir")))
        return UNKNOWN

    # ------------------------------------------------------------------ background saves
    def saves(self, target: ast.expr | None) -> bool:
        """Does calling `target` (a function, method, lambda, partial) write a checkpoint?"""
        if target is None:
            return False
        self.silent += 1
        try:
            return self._saves(target)
        finally:
            self.silent -= 1

    def _saves(self, target: ast.expr) -> bool:
        for n in ast.walk(target):
            if isinstance(n, (ast.Name, ast.Attribute)):
                if apis.classify(self.index.qualify(n), None, 0, None) in apis.SAVING:
                    return True
                callee = self.resolve_callee(
                    n, self.value(n.value) if isinstance(n, ast.Attribute) else None
                )
                if isinstance(callee, tuple) and id(callee[0]) in self.index_of(callee[0]).saving:
                    return True
            if isinstance(n, ast.Call) and _call_tag(self, n) in apis.SAVING:
                return True
        return False

    def _start(
        self,
        node: ast.Call,
        api: str,
        handles: frozenset[str],
        must_wait: bool,
        serial: bool = False,
        payload: list[Value] | None = None,
    ) -> Value:
        live = any(
            v.kinds & _LIVE and COPIED not in v.flags and BUFFER not in v.flags
            for v in payload or []
        )
        i = self.emit(Async(site_of(node), self.ctx, api, handles, must_wait, serial, live=live))
        return Value(flags=frozenset((f"async:{i}",))) if i >= 0 else UNKNOWN

    def c_thread(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        target = next((k.value for k in node.keywords if k.arg == "target"), None)
        if target is None and len(node.args) > 1:
            target = node.args[1]
        if not self.saves(target):
            return UNKNOWN
        daemon = next((k.value for k in node.keywords if k.arg == "daemon"), None)
        must_wait = isinstance(daemon, ast.Constant) and daemon.value is True
        packed = next((k.value for k in node.keywords if k.arg == "args"), None)
        payload = (
            [self.value(e) for e in packed.elts]
            if isinstance(packed, (ast.Tuple, ast.List))
            else []
        )
        out = self._start(node, "thread", frozenset(), must_wait, payload=payload)
        self._run_target(
            node, target, next((k.value for k in node.keywords if k.arg == "args"), None)
        )
        return out

    def c_submit(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        target = node.args[0] if node.args else None
        if not self.saves(target):
            return UNKNOWN
        out = self._start(
            node, "submit", recv.aliases, False, SERIAL in recv.flags, payload=args[1:]
        )
        self._run_target(node, target, ast.Tuple(elts=node.args[1:]) if node.args else None)
        return out

    def c_async_save(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        """`dcp.async_save` copies the state to CPU memory before it returns, unless staging
        is asynchronous too (an `async_stager`): then the tensors are live until staging ends."""
        staged_later = any(k.arg == "async_stager" for k in node.keywords)
        payload = [_arg(args, kw, 0, "state_dict")] if staged_later else []
        return self._start(node, "async_save", frozenset(), True, payload=payload)

    def c_task(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        if not self.saves(node.args[0] if node.args else None):
            return UNKNOWN
        return self._start(node, "task", frozenset(), True)

    def _run_target(self, node: ast.Call, target: ast.expr | None, packed: ast.expr | None) -> None:
        """Inline a background target of this file, so its own saves are checked too."""
        if target is None:
            return
        if isinstance(target, ast.Lambda):
            self.value(target.body)
            return
        fn = self.resolve_callee(
            target, self.value(target.value) if isinstance(target, ast.Attribute) else None
        )
        if isinstance(fn, tuple):
            elts = packed.elts if isinstance(packed, (ast.Tuple, ast.List)) else []
            self.inline(node, fn[0], [self.value(e) for e in elts], {}, None, fn[1])

    def c_executor(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        workers = next(
            (k.value for k in node.keywords if k.arg in ("max_workers", "processes")), None
        )
        if workers is None and node.args:
            workers = node.args[0]
        serial = isinstance(workers, ast.Constant) and workers.value == 1
        return Value(flags=frozenset((EXECUTOR, SERIAL) if serial else (EXECUTOR,)))

    def c_wait(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        if any(
            k.arg == "wait" and isinstance(k.value, ast.Constant) and k.value.value is False
            for k in node.keywords
        ):
            return UNKNOWN  # executor.shutdown(wait=False)
        handles = recv.aliases
        if isinstance(node.func, ast.Attribute):  # `self.pending.upload_completion.result()`
            owner = dotted(node.func.value) or ""
            handles = handles | (frozenset(owner.split(".")[1:-1]) - {"self"})
        for i in async_indices(recv):  # `response.upload_completion.result()`: its handles
            e = self.events[i] if 0 <= i < len(self.events) else None
            if isinstance(e, Async):
                handles = handles | e.handles
        self.emit(Wait(site_of(node), self.ctx, handles))
        return UNKNOWN

    def c_wait_fn(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        self.emit(Wait(site_of(node), self.ctx, join(args).aliases))
        return UNKNOWN

    # ------------------------------------------------------------------ paths and values
    def c_join_path(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        parts = (
            [recv] if isinstance(node.func, ast.Attribute) and node.func.attr == "joinpath" else []
        ) + args
        return join(parts, text="/".join(p.text for p in parts))

    def c_copy(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        """`.cpu()`, `.clone()`, `.to(...)`, `copy.deepcopy(x)`: the same state, copied."""
        return self.c_transparent(node, args, kw, recv).plus(flags=frozenset((COPIED,)))

    def c_rng_restore(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        self.emit(Restore(site_of(node), self.ctx, vocab.RNG, args[0] if args else UNKNOWN))
        return UNKNOWN

    def c_transparent(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        if isinstance(node.func, ast.Attribute) and not apis.is_known_function(
            self.index.qualify(node.func)
        ):
            return recv
        return args[0] if args else UNKNOWN

    def c_dirname(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        base = args[0] if args else UNKNOWN
        return base.with_text(base.text + "/..")

    def c_listing(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        qual = self.index.qualify(node.func)
        attr = node.func.attr if isinstance(node.func, ast.Attribute) else None
        method = attr is not None and not apis.is_known_function(qual)
        base = recv if method else (args[0] if args else UNKNOWN)
        text = base.text  # a glob pattern: the entries are paths
        if qual in ("os.listdir", "os.scandir") or (method and attr == "iterdir"):
            text = "{entry}"  # bare names (a Path's iterdir gives paths under it)
            if method:
                text = base.text + "/{entry}"
        elif method:
            pattern = args[0].text if args else "*"
            text = base.text + "/" + pattern
        return Value(
            text=text, names=base.names, selections=base.selections, flags=frozenset((LISTING,))
        )

    def c_sorted(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        return args[0] if args else UNKNOWN

    def c_max(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        if len(args) == 1 and LISTING in args[0].flags:
            return self.select(node, args[0])
        return join(args).with_text("")

    def c_tempfile(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        return Value(text="{tmp}", flags=frozenset((TMP,)))

    def c_state_dict(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        kinds = recv.kinds or frozenset((vocab.WHOLE,))
        return Value(kinds=kinds, names=recv.names, loads=recv.loads)

    def c_rng_state(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        return Value(kinds=frozenset((vocab.RNG,)))

    def c_dict(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        kinds = {k for k in (vocab.kind_of_key(name) for name in kw if name != "**") if k}
        out = join(args + list(kw.values()))
        return Value(
            kinds=out.kinds | frozenset(kinds),
            keys=frozenset(kw) - {"**"},
            names=out.names,
            loads=out.loads,
            flags=copied(args + list(kw.values())),
        )

    def c_update(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        name = dotted(node.func.value) if isinstance(node.func, ast.Attribute) else None
        if name is not None and name in self.env:
            added = self.c_dict(node, args, kw, recv)
            self.env[name] = join([self.env[name], added], text=self.env[name].text).plus(
                keys=added.keys
            )
        return UNKNOWN

    def c_append(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        for a in args:
            for i in async_indices(a):
                e = self.events[i] if 0 <= i < len(self.events) else None
                if isinstance(e, Async):
                    self.events[i] = replace(e, handles=e.handles | recv.aliases)
        return UNKNOWN

    def c_format(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        func = node.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Constant):
            return join([recv, *args, *kw.values()]).with_text("")
        positional = iter(args)

        def fill(m: re.Match[str]) -> str:
            name = m.group(0)[1:-1].split(":")[0].split("!")[0]
            if name in kw:
                return kw[name].text
            if name.isdigit() and int(name) < len(args):
                return args[int(name)].text
            return next(positional, Value(text="{?}")).text

        return join([recv, *args, *kw.values()], text=_FORMAT_FIELD.sub(fill, recv.text))

    def c_get(self, node: ast.Call, args: Args, kw: Kwargs, recv: Value) -> Value:
        key = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
        if isinstance(key, str):
            return self.key_of(node, recv, key)
        return self.unknown_call("get", args, recv)


def _arg(args: Args, kw: Kwargs, position: int, *names: str) -> Value:
    if position < len(args):
        return args[position]
    for n in names:
        if n in kw:
            return kw[n]
    return UNKNOWN


def _call_tag(ev: Evaluator, call: ast.Call) -> str | None:
    func = call.func
    attr = (
        func.attr
        if isinstance(func, ast.Attribute)
        else func.id
        if isinstance(func, ast.Name)
        else None
    )
    receiver = dotted(func.value) if isinstance(func, ast.Attribute) else None
    return apis.classify(ev.index.qualify(func), attr, len(call.args), receiver)
