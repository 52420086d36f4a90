"""The data-flow layer: walk each entry point of a file in program order, following values
through assignments, branches, loops, `with` blocks and same-file helpers, into a `Trace`.

Loops are walked once (a protocol is a fixed set of calls per step); both arms of an `if` are
walked, each under its own branch, and their assignments are joined afterwards. Helpers are
inlined up to `MAX_DEPTH` calls deep, with their parameters bound to the caller's values;
recursion and an exhausted statement budget fall back to an unknown value.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from fito.lint import guards, vocab
from fito.lint.calls import Calls, async_indices
from fito.lint.events import Async, Context, KeyRead, Trace, Wait
from fito.lint.exprs import Env, site_of
from fito.lint.index import FunctionNode, ModuleIndex, dotted
from fito.lint.project import Project
from fito.lint.values import EXECUTOR, LOOP, UNKNOWN, Value, join

MAX_DEPTH = 6
BUDGET = 20_000  # statements walked per entry point, helpers included


class Walker(Calls):
    def __init__(self, index: ModuleIndex, project: Project | None = None) -> None:
        super().__init__(index)
        self.home = index
        self.project = project
        self.fn_index: dict[int, ModuleIndex] = {}  # functions of other modules: their module
        self.frames = 0  # inlined calls so far (each gets its own Context.frame)
        self._returns_cache: dict[int, bool] = {}
        self.cls: str | None = None
        self.stack: list[int] = []
        self.local_defs: list[dict[str, FunctionNode]] = [{}]
        self.returns: list[list[Value]] = []
        self.inlined: set[int] = set()
        self.budget = BUDGET
        self.loop_ends: dict[int, int] = {}
        self.module_scope = False
        self._attr_envs: dict[str, Env] = {}
        self.packed: dict[str, list[Value]] = {}  # *args of the helper being inlined
        self.packed_kw: dict[str, dict[str, Value]] = {}  # and its **kwargs

    # ------------------------------------------------------------------ entry points
    def traces(self) -> list[Trace]:
        """One trace for the module code, then one per function no other function calls."""
        self.env, self.module_scope = {}, True
        self.globals = self.env
        out = [self._root("<module>", self.index.tree.body)]
        self.module_scope = False
        module_env = self.globals
        functions = sorted(self.index.all_functions(), key=lambda f: f.lineno)
        first = [f for f in functions if not self.index.called_by_others(f)]
        later = [f for f in functions if self.index.called_by_others(f)]
        elsewhere = self.project.called_elsewhere if self.project is not None else set()
        for fn in first + later:
            if id(fn) in self.inlined or id(fn) not in self.index.relevant or id(fn) in elsewhere:
                continue
            self.globals = module_env
            cls = self.index.owner.get(id(fn))
            self.env, self.cls = dict(self.attr_env(cls)) if cls else {}, cls
            self.stack = [id(fn)]
            rank0 = any(guards.is_rank0_decorator(d) for d in fn.decorator_list)
            out.append(self._root(fn.name, fn.body, Context(rank0=rank0)))
            self.stack = []
        return out

    def _root(self, name: str, body: list[ast.stmt], ctx: Context | None = None) -> Trace:
        self.events, self.loop_ends, self.budget = [], {}, BUDGET
        self.ctx = ctx or Context()
        self.returns = [[]]
        self.walk_body(body)
        return Trace(name, tuple(self.events), dict(self.loop_ends))

    def attr_env(self, cls: str) -> Env:
        """`self.x` as `__init__` assigns it (walked once, silently, per class)."""
        key = self.index.path + ":" + cls
        if key not in self._attr_envs:
            self._attr_envs[key] = {}
            init = self.index.method(cls, "__init__")
            if init is not None:
                saved = (self.env, self.ctx, self.cls)
                self.env, self.cls = {}, cls
                self.silent += 1
                self.stack.append(id(init))
                try:
                    self.walk_body(init.body)
                finally:
                    self.stack.pop()
                    self.silent -= 1
                    found = {k: v for k, v in self.env.items() if k.startswith("self.")}
                    self.env, self.ctx, self.cls = saved
                self._attr_envs[key] = found
        return self._attr_envs[key]

    # ------------------------------------------------------------------ helpers
    def resolve_callee(
        self, func: ast.expr, recv: Value | None
    ) -> tuple[FunctionNode, str | None] | str | None:
        if isinstance(func, ast.Name):
            for defs in reversed(self.local_defs):
                if func.id in defs:
                    return defs[func.id], None
            if func.id in self.index.functions:
                return self.index.functions[func.id], None
            if func.id in self.index.classes:
                return func.id
            return self._foreign(self.index.imports.get(func.id))
        if not isinstance(func, ast.Attribute):
            return None
        cls: str | None = None
        index = self.index
        if isinstance(func.value, ast.Name) and func.value.id == "self":
            cls = self.cls
        elif recv is not None:
            spec = next((f[6:] for f in recv.flags if f.startswith("class:")), None)
            if spec is not None:
                cls, _, path = spec.partition("@")
                if path and self.project is not None:
                    index = self.project.index(path) or index
        if cls is None and dotted(func.value) in self.index.classes:
            cls = dotted(func.value)
        method = index.method(cls, func.attr) if cls else None
        if method is not None and index is not self.index:
            if self.project is None or not self.project.inlinable(method):
                return None  # a large method of another module: linted in its own file
            self.adopt(method, index)
            return method, cls
        if method is not None:
            return method, cls
        name = dotted(func)
        head = name.partition(".")[0] if name else ""
        if name and head in self.index.imports and head != name:
            return self._foreign(self.index.imports[head] + name[len(head) :])
        return None

    def _foreign(self, qual: str | None) -> tuple[FunctionNode, str | None] | str | None:
        """A function (or class) another module of the project defines, if `qual` names one."""
        if qual is None or self.project is None:
            return None
        callee = self.project.resolve(self.index, qual)
        if callee is None:
            return None
        if callee.fn is None:
            return callee.cls + "@" + callee.index.path if callee.cls else None
        self.adopt(callee.fn, callee.index)
        return callee.fn, callee.cls

    def _returns_value(self, fn: FunctionNode) -> bool:
        """`_returns_value(fn)`, once per function of the walk."""
        key = id(fn)
        if key not in self._returns_cache:
            self._returns_cache[key] = _returns_value(fn)
        return self._returns_cache[key]

    def index_of(self, fn: FunctionNode) -> ModuleIndex:
        """The module that defines `fn`."""
        return self.fn_index.get(id(fn), self.index)

    def adopt(self, fn: FunctionNode, index: ModuleIndex) -> None:
        self.fn_index[id(fn)] = index

    def helper_size_ok(self, fn: FunctionNode) -> bool:
        return self.project is not None and self.project.inlinable(fn)

    def module_index(self, path: str) -> ModuleIndex:
        found = self.project.index(path) if self.project is not None else None
        return found or self.index

    def inline(
        self,
        node: ast.Call,
        fn: FunctionNode,
        args: list[Value],
        kw: dict[str, Value],
        bound_self: Value | None,
        cls: str | None,
        body: list[ast.stmt] | None = None,
    ) -> Value | None:
        if id(fn) in self.stack or len(self.stack) >= MAX_DEPTH or self.budget <= 0:
            return None
        owner = self.index_of(fn)
        if id(fn) not in owner.relevant and not self._returns_value(fn):
            return None
        self.inlined.add(id(fn))
        saved_module = (self.index, self.foreign)
        saved = (
            self.env,
            self.globals,
            self.ctx,
            self.cls,
            self.module_scope,
            self.packed,
            self.packed_kw,
        )
        if self.module_scope:
            self.globals = self.env
        if owner is not self.index:
            self.index = owner
            if self.foreign is None:  # entering another module: its events are this call's
                self.foreign = (site_of(node), len(self.ctx.calls) + 1, len(self.ctx.skips))
            self.globals = {}
        self.env = dict(self.attr_env(cls)) if cls else {}
        self.packed, self.packed_kw = {}, {}
        self._bind_params(fn, args, kw, method=cls is not None)
        rank0 = self.ctx.rank0 or any(guards.is_rank0_decorator(d) for d in fn.decorator_list)
        self.frames += 1
        self.ctx = replace(
            self.ctx, calls=self.ctx.calls + (site_of(node),), rank0=rank0, frame=self.frames
        )
        self.cls, self.module_scope = cls, False
        self.stack.append(id(fn))
        self.returns.append([])
        self.local_defs.append({})
        try:
            self.walk_body(fn.body if body is None else body)
        finally:
            self.stack.pop()
            self.local_defs.pop()
            rets = self.returns.pop()
            (
                self.env,
                self.globals,
                self.ctx,
                self.cls,
                self.module_scope,
                self.packed,
                self.packed_kw,
            ) = saved
            self.index, self.foreign = saved_module
        if not rets:
            return UNKNOWN
        return join(rets, text=next((r.text for r in rets if r.text), ""))

    def _bind_params(
        self, fn: FunctionNode, args: list[Value], kw: dict[str, Value], method: bool
    ) -> None:
        a = fn.args
        positional = a.posonlyargs + a.args
        is_static = any(dotted(d) == "staticmethod" for d in fn.decorator_list)
        if method and positional and not is_static:
            positional = positional[1:]
        defaults = dict(
            zip([p.arg for p in positional[len(positional) - len(a.defaults) :]], a.defaults)
        )
        defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
        for i, p in enumerate(positional + a.kwonlyargs):
            if i < len(positional) and i < len(args):
                self.env[p.arg] = args[i]
            elif p.arg in kw:
                self.env[p.arg] = kw[p.arg]
            elif p.arg in defaults:
                self.env[p.arg] = self.value(defaults[p.arg])
        if a.vararg is not None:  # save_on_master(*args, **kwargs): torch.save(*args, **kwargs)
            self.packed["*" + a.vararg.arg] = args[len(positional) :]
        if a.kwarg is not None:
            named_params = {p.arg for p in positional + a.kwonlyargs}
            self.packed_kw["**" + a.kwarg.arg] = {
                k: v for k, v in kw.items() if k not in named_params
            }

    # ------------------------------------------------------------------ statements
    def walk_body(self, body: list[ast.stmt]) -> None:
        ctx = self.ctx
        for stmt in body:
            if self.budget <= 0:
                break
            self.budget -= 1
            method = getattr(self, "s_" + type(stmt).__name__, None)
            if method is not None:
                method(stmt)
        self.ctx = ctx

    def s_Expr(self, node: ast.Expr) -> None:
        self.value(node.value)

    def s_Assign(self, node: ast.Assign) -> None:
        target, value = node.targets[0], node.value
        if (
            len(node.targets) == 1
            and isinstance(target, (ast.Tuple, ast.List))
            and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts)
        ):
            for t, e in zip(target.elts, value.elts):  # last, best = w / "last.pt", w / "best.pt"
                self.bind(t, self._with_rank_flag(e, self.value(e)))
            return
        v = self._with_rank_flag(node.value, self.value(node.value))
        for t in node.targets:
            if (
                isinstance(t, ast.Attribute)
                and t.attr == "daemon"
                and isinstance(node.value, ast.Constant)
                and node.value.value is True
            ):
                self._mark_daemon(t.value)
            self.bind(t, v)

    def s_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.bind(node.target, self._with_rank_flag(node.value, self.value(node.value)))

    def s_AugAssign(self, node: ast.AugAssign) -> None:
        v = self.value(node.value)
        old = (
            self.value(node.target)
            if isinstance(node.target, (ast.Name, ast.Attribute))
            else UNKNOWN
        )
        self.bind(node.target, join([old, v], text=old.text + v.text))

    def s_Return(self, node: ast.Return) -> None:
        v = self.value(node.value)
        self.escape(v)
        if self.returns:
            self.returns[-1].append(v)

    def s_Assert(self, node: ast.Assert) -> None:
        self.value(node.test)

    def s_Raise(self, node: ast.Raise) -> None:
        self.value(node.exc)

    def s_FunctionDef(self, node: FunctionNode) -> None:
        self.local_defs[-1][node.name] = node

    s_AsyncFunctionDef = s_FunctionDef

    def s_If(self, node: ast.If) -> None:
        self.value(node.test)
        kind = guards.rank_test(node.test, self._flags_of)
        guard = (
            ((id(node), node.lineno, "an existence test"),)
            if guards.is_existence_test(node.test)
            else ()
        )
        base, before = self.ctx, dict(self.env)
        arms = (
            replace(
                base,
                branches=base.branches + ((id(node), 0),),
                rank0=base.rank0 or kind == guards.RANK0,
                subset=base.subset or kind == guards.SUBSET,
                skips=base.skips + guard,
            ),
            replace(
                base,
                branches=base.branches + ((id(node), 1),),
                rank0=base.rank0 or kind == guards.NOT_RANK0,
                skips=base.skips + guard,
            ),
        )
        self.ctx = arms[0]
        self.walk_body(node.body)
        after_body, self.env = self.env, dict(before)
        self.ctx = arms[1]
        self.walk_body(node.orelse)
        after_else = self.env
        self.ctx = base
        ends = (guards.terminates(node.body), guards.terminates(node.orelse))
        if ends[0] == ends[1]:
            self.env = _merge(after_body, after_else)
            return
        # one arm always leaves: what follows the `if` runs on the other arm only (as its
        # continuation); an early return that warns, or follows an existence test, can skip
        # all of it without a word
        left, going_on = (node.body, 1) if ends[0] else (node.orelse, 0)
        self.env = after_else if going_on else after_body
        quiet = not guards.reraises(left) and (bool(guard) or guards.warns(left))
        self.ctx = replace(
            arms[going_on],
            skips=base.skips + (((id(node), node.lineno, "an early return"),) if quiet else ()),
        )

    def s_For(self, node: ast.For | ast.AsyncFor) -> None:
        it = self.value(node.iter)
        for t in ast.walk(node.target):
            if isinstance(t, ast.Name):  # each element: read as its own name, from the iterable
                self.env[t.id] = Value(
                    text="{" + t.id + "}",
                    kinds=it.kinds,
                    names=it.names | {LOOP + t.id},
                    selections=it.selections,
                    loads=it.loads,
                    aliases=it.aliases,
                )
        self._loop(node, node.body)
        self.walk_body(node.orelse)

    s_AsyncFor = s_For

    def s_While(self, node: ast.While) -> None:
        self.value(node.test)
        self._loop(node, node.body)
        self.walk_body(node.orelse)

    def _loop(self, node: ast.stmt, body: list[ast.stmt]) -> None:
        base = self.ctx
        self.ctx = replace(base, loops=base.loops + (id(node),))
        self.walk_body(body)
        self.ctx = base
        self.loop_ends[id(node)] = len(self.events)

    def s_With(self, node: ast.With | ast.AsyncWith) -> None:
        if self._context_manager(node):
            return
        executors: list[Value] = []
        for item in node.items:
            v = self.value(item.context_expr)
            if item.optional_vars is not None:
                self.bind(item.optional_vars, v)
                if isinstance(item.optional_vars, ast.Name):
                    v = v.plus(aliases=frozenset((item.optional_vars.id,)))
            if EXECUTOR in v.flags:
                executors.append(v)
        self.walk_body(node.body)
        for v in executors:  # leaving the block waits for every submitted task
            self.emit(Wait(site_of(node), self.ctx, v.aliases))

    s_AsyncWith = s_With

    def _context_manager(self, node: ast.With | ast.AsyncWith) -> bool:
        """`with staged(final) as d:` where `staged` is a `@contextmanager` of the project:
        its code up to the `yield`, the block with `d` bound to the yielded value, then its
        code after the `yield` (the `finally` included), as one walk. A temporary directory
        renamed after a barrier there is a commit like any other."""
        if len(node.items) != 1 or not isinstance(node.items[0].context_expr, ast.Call):
            return False
        item = node.items[0]
        call = item.context_expr
        assert isinstance(call, ast.Call)
        func = call.func
        target = self.resolve_callee(
            func, self.value(func.value) if isinstance(func, ast.Attribute) else None
        )
        if not isinstance(target, tuple) or not _is_context_manager(target[0]):
            return False
        fn, cls = target
        split = _split_at_yield(fn.body)
        if split is None:
            return False
        pre, yielded, post = split
        resume = _Resume(node, item.optional_vars, yielded, self)
        args, kw = self.arguments(call)
        recv = self.value(func.value) if isinstance(func, ast.Attribute) else None
        self.inline(call, fn, args, kw, recv, cls, body=[*pre, resume, *post])
        if not resume.ran:  # not inlined (depth, budget, recursion): the block alone
            self.walk_body(node.body)
        elif resume.env_after is not None:
            self.env = resume.env_after
        return True

    def s__Resume(self, node: _Resume) -> None:
        """The `yield` of an inlined context manager: the caller's block runs here."""
        value = self.value(node.yielded)
        callee = self._state()
        self._restore(node.caller)
        node.ran = True
        returns, defs = self.returns.pop(), self.local_defs.pop()  # the callee's
        try:
            if node.target is not None:
                self.bind(node.target, value)
            self.walk_body(node.with_node.body)
            node.env_after = self.env
        finally:
            self.returns.append(returns)
            self.local_defs.append(defs)
            self._restore(callee)

    def _state(self) -> tuple[object, ...]:
        return (
            self.env,
            self.globals,
            self.ctx,
            self.cls,
            self.module_scope,
            self.packed,
            self.packed_kw,
            self.index,
            self.foreign,
        )

    def _restore(self, state: tuple[object, ...]) -> None:
        (
            self.env,
            self.globals,
            self.ctx,
            self.cls,
            self.module_scope,
            self.packed,
            self.packed_kw,
            self.index,
            self.foreign,
        ) = state  # type: ignore[assignment]

    def s_Try(self, node: ast.Try) -> None:
        base = self.ctx
        if any(not guards.reraises(h.body) for h in node.handlers):  # a handler goes on
            guard = (id(node), node.lineno, "an exception handler that goes on")
            self.ctx = replace(base, skips=base.skips + (guard,))
        self.walk_body(node.body)
        self.ctx = base
        for i, h in enumerate(node.handlers, 1):
            self.ctx = replace(base, branches=base.branches + ((id(node), i),))
            self.walk_body(h.body)
        self.ctx = base
        self.walk_body(node.orelse)
        self.walk_body(node.finalbody)

    s_TryStar = s_Try

    def s_Match(self, node: ast.Match) -> None:
        self.value(node.subject)
        base = self.ctx
        for i, case in enumerate(node.cases):
            self.ctx = replace(base, branches=base.branches + ((id(node), i),))
            self.walk_body(case.body)
        self.ctx = base

    # ------------------------------------------------------------------ binding
    def bind(self, target: ast.expr, v: Value) -> None:
        if isinstance(target, (ast.Name, ast.Attribute)):
            name = dotted(target)
            if name is None:
                return
            # kept in an object of another module: its other methods, which this file's
            # entry points do not show, may wait for it
            held = "." in name and self.foreign is not None
            self._add_handle(v, name.rsplit(".", 1)[-1], held=held)
            if (v.loads or v.selections) and vocab.kind_of_key(name) == vocab.STEP:
                self.emit(KeyRead(site_of(target), self.ctx, name, v, bound=True))
            self.env[name] = v
        elif isinstance(target, ast.Subscript):
            name = dotted(target.value)
            key = target.slice.value if isinstance(target.slice, ast.Constant) else None
            if name is None:
                return
            old = self.env.get(name) or self.lookup(name)
            new = join([old, v], text=old.text)
            if isinstance(key, str):
                kind = vocab.kind_of_key(key)
                new = new.plus(
                    keys=frozenset((key,)), kinds=frozenset((kind,)) if kind else frozenset()
                )
            self.env[name] = new
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:
                self.bind(e, v)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, v)

    def _add_handle(self, v: Value, name: str, held: bool = False) -> None:
        for i in async_indices(v):
            e = self.events[i] if 0 <= i < len(self.events) else None
            if isinstance(e, Async):
                self.events[i] = replace(e, handles=e.handles | {name}, held=e.held or held)

    def _mark_daemon(self, handle: ast.expr) -> None:
        name = dotted(handle)
        for i in async_indices(self.lookup(name)) if name else []:
            e = self.events[i] if 0 <= i < len(self.events) else None
            if isinstance(e, Async):
                self.events[i] = replace(e, must_wait=True)

    def _with_rank_flag(self, node: ast.expr, v: Value) -> Value:
        kind = guards.rank_test(node, self._flags_of)
        return v.plus(flags=frozenset((kind,))) if kind in (guards.RANK0, guards.NOT_RANK0) else v

    def _flags_of(self, name: str) -> frozenset[str]:
        v = self.env.get(name) or self.globals.get(name)
        return v.flags if v is not None else frozenset()


class _Resume(ast.stmt):
    """A statement put in place of a context manager's `yield`: run the caller's block."""

    _fields = ()

    def __init__(
        self,
        with_node: ast.With | ast.AsyncWith,
        target: ast.expr | None,
        yielded: ast.expr | None,
        walker: Walker,
    ) -> None:
        super().__init__()
        self.with_node, self.target, self.yielded = with_node, target, yielded
        self.caller = walker._state()
        self.ran = False
        self.env_after: Env | None = None


def _is_context_manager(fn: FunctionNode) -> bool:
    return any(
        (dotted(d) or "").rsplit(".", 1)[-1] in ("contextmanager", "asynccontextmanager")
        for d in fn.decorator_list
    )


def _split_at_yield(
    body: list[ast.stmt],
) -> tuple[list[ast.stmt], ast.expr | None, list[ast.stmt]] | None:
    """The statements before the `yield`, its value, and those after it (a `try`'s `else`
    and `finally` included; its handlers are the error path)."""
    for i, stmt in enumerate(body):
        value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
        if isinstance(value, (ast.Yield, ast.YieldFrom)):
            return body[:i], value.value, body[i + 1 :]
        if isinstance(stmt, ast.Try):
            inner = _split_at_yield(stmt.body)
            if inner is not None:
                pre, v, post = inner
                return body[:i] + pre, v, post + stmt.orelse + stmt.finalbody + body[i + 1 :]
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            inner = _split_at_yield(stmt.body)
            if inner is not None:
                pre, v, post = inner
                return body[:i] + [*pre], v, post + body[i + 1 :]
    return None


def _merge(a: Env, b: Env) -> Env:
    """The environment after an `if`: a name assigned on either arm may hold either value."""
    out = dict(b)
    for k, va in a.items():
        vb = b.get(k)
        if vb is None:
            out[k] = va
        elif vb is not va:
            out[k] = join([va, vb], text=va.text or vb.text)
    return out


def _returns_value(fn: FunctionNode) -> bool:
    """Small helpers that compute a value (a path, a state dict) are inlined for it."""
    return len(fn.body) <= 12 and any(
        isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn)
    )
