"""Values of expressions: names through the environment, strings and paths as text,
dictionaries as the components they hold. Calls go to `fito.lint.calls`."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from fito.lint import vocab
from fito.lint.events import Compare, Context, Event, KeyRead
from fito.lint.index import ModuleIndex, dotted
from fito.lint.values import (
    CONFIG,
    COPIED,
    ENTRY,
    LISTING,
    LOOP,
    NUMBER,
    UNKNOWN,
    Site,
    Value,
    join,
    named,
)

Env = dict[str, Value]
_PERCENT = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[sdifrxXeEgG]")


def site_of(node: ast.expr | ast.stmt) -> Site:
    return (
        node.lineno,
        node.col_offset,
        getattr(node, "end_lineno", None) or node.lineno,
        getattr(node, "end_col_offset", None) or node.col_offset,
    )


class Evaluator:
    """Expression values under `self.env`; events go to `self.events` (unless silent)."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.env: Env = {}
        self.globals: Env = {}
        self.ctx = Context()
        self.events: list[Event] = []
        self.silent = 0
        #: inside a function of another module: the call site in this file that reached it,
        #: and how many call sites and skipping guards of the context are this file's
        self.foreign: tuple[Site, int, int] | None = None

    # ------------------------------------------------------------------ events
    def emit(self, event: Event) -> int:
        if self.silent:
            return -1
        if self.foreign is not None:  # a helper of another module: reported at its call
            site, depth, guards = self.foreign
            skips = event.ctx.skips[:guards] + tuple(
                (i, site[0], how) for i, _, how in event.ctx.skips[guards:]
            )
            ctx = replace(event.ctx, calls=event.ctx.calls[:depth], skips=skips)
            event = replace(event, site=site, ctx=ctx)
        self.events.append(event)
        return len(self.events) - 1

    # ------------------------------------------------------------------ names
    def lookup(self, name: str) -> Value:
        v = self.env.get(name)
        if v is None:
            v = self.globals.get(name)
        if v is None:
            return named(name)
        extra = named(name)
        kinds = v.kinds if v.kinds or CONFIG in v.flags else extra.kinds
        if NUMBER in v.flags:  # a counter (epoch = 0, then += 1): shown by its name
            v = v.with_text(extra.text)
        own = frozenset() if LOOP + name in v.names else frozenset((name,))
        return v.plus(names=own, aliases=extra.aliases, kinds=kinds)

    def value(self, node: ast.expr | None) -> Value:
        if node is None:
            return UNKNOWN
        method = getattr(self, "v_" + type(node).__name__, None)
        if method is not None:
            return method(node)
        return join([self.value(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)])

    def v_Constant(self, node: ast.Constant) -> Value:
        if isinstance(node.value, str):
            return Value(text=node.value)
        if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return Value(text=str(node.value), flags=frozenset((NUMBER,)))
        return UNKNOWN

    def v_Name(self, node: ast.Name) -> Value:
        return self.lookup(node.id)

    def v_Attribute(self, node: ast.Attribute) -> Value:
        name = dotted(node)
        if name is not None and not isinstance(node.value, (ast.Call, ast.Subscript)):
            if name in self.env or name in self.globals:
                return self.lookup(name)
            base = self.value(node.value)
            own = named(name)
            if node.attr == "parent":
                return base.with_text(base.text + "/..")
            keep = base.flags - {LISTING}
            return join(
                [own, Value(selections=base.selections, loads=base.loads, flags=keep)],
                text=own.text,
            )
        base = self.value(node.value)
        return base.with_text("{" + node.attr + "}")

    def v_JoinedStr(self, node: ast.JoinedStr) -> Value:
        parts = [self.value(v) for v in node.values]
        text = "".join(p.text if p.text else "{?}" for p in parts)
        return join(parts, text=text)

    def v_FormattedValue(self, node: ast.FormattedValue) -> Value:
        v = self.value(node.value)
        return v if v.text else v.with_text("{" + (dotted(node.value) or "?") + "}")

    def v_BinOp(self, node: ast.BinOp) -> Value:
        left, right = self.value(node.left), self.value(node.right)
        if isinstance(node.op, ast.Add):
            if NUMBER in left.flags and NUMBER in right.flags or _is_number(node.right):
                return join([left, right]).with_text("").plus(flags=frozenset((NUMBER,)))
            return join([left, right], text=left.text + right.text)
        if isinstance(node.op, ast.Div):
            return join([left, right], text=left.text + "/" + right.text)
        if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
            args = (
                [self.value(e) for e in node.right.elts]
                if isinstance(node.right, ast.Tuple)
                else [right]
            )
            texts = iter([a.text for a in args])
            text = _PERCENT.sub(lambda m: next(texts, "{?}"), left.text)
            return join([left, *args], text=text)
        return join([left, right]).with_text("")

    def v_Dict(self, node: ast.Dict) -> Value:
        values: list[Value] = []
        keys: set[str] = set()
        kinds: set[str] = set()
        for k, v in zip(node.keys, node.values):
            val = self.value(v)
            values.append(val)
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                keys.add(k.value)
                kind = vocab.kind_of_key(k.value)
                if kind is not None:
                    kinds.add(kind)
            elif k is None:
                keys |= val.keys
        out = join(values)
        return Value(
            kinds=out.kinds | frozenset(kinds),
            keys=frozenset(keys),
            names=out.names,
            selections=out.selections,
            loads=out.loads,
            flags=copied(values),
        )

    def v_Subscript(self, node: ast.Subscript) -> Value:
        base = self.value(node.value)
        index = node.slice
        key = index.value if isinstance(index, ast.Constant) else None
        self.value(index)
        if LISTING in base.flags and _is_last(index):
            return self.select(node, base)
        if isinstance(key, str):
            return self.key_of(node, base, key)
        return Value(
            text=base.text,
            kinds=base.kinds,
            names=base.names,
            selections=base.selections,
            loads=base.loads,
            flags=base.flags - {LISTING},
            aliases=base.aliases,
        )

    def key_of(self, node: ast.expr, base: Value, key: str) -> Value:
        """`base[key]` or `base.get(key)`: a read from a loaded checkpoint is an event."""
        if base.loads:
            self.emit(KeyRead(site_of(node), self.ctx, key, base))
        kind = vocab.kind_of_key(key)
        kinds = frozenset((kind,)) if kind and kind != vocab.STEP else frozenset()
        if not kinds and base.loads:
            kinds = base.kinds
        return Value(
            text="{" + key + "}",
            kinds=kinds,
            names=base.names | {key},
            selections=base.selections,
            loads=base.loads,
            flags=frozenset((ENTRY,)) if base.loads else frozenset(),
        )

    def select(self, node: ast.expr, listing: Value) -> Value:
        """The latest entry of a listing: a selection, identified by where it is made."""
        site = self.identity(node)
        return Value(
            text=listing.text.replace("{entry}", "{latest}"),
            names=listing.names,
            selections=listing.selections | {site},
            loads=listing.loads,
        )

    def identity(self, node: ast.expr | ast.stmt) -> Site:
        """Where a value is made, told apart per call of the helper that makes it."""
        line, col, _, _ = site_of(node)
        if self.ctx.calls:
            call = self.ctx.calls[-1]
            return (line, col, call[0], call[1])
        return (line, col, 0, 0)

    def v_Compare(self, node: ast.Compare) -> Value:
        parts = [self.value(node.left)] + [self.value(c) for c in node.comparators]
        sels = frozenset().union(*(p.selections for p in parts))
        if len(sels) > 1:
            self.emit(Compare(site_of(node), self.ctx, sels))
        return join(parts).with_text("")

    def v_BoolOp(self, node: ast.BoolOp) -> Value:
        """`tag or f"global_step{n}"`: either operand; shown as the first one known."""
        parts = [self.value(v) for v in node.values]
        return join(parts, text=next((p.text for p in parts if p.text), ""))

    def v_IfExp(self, node: ast.IfExp) -> Value:
        self.value(node.test)
        body, orelse = self.value(node.body), self.value(node.orelse)
        return join([body, orelse], text=body.text or orelse.text)

    def v_Lambda(self, node: ast.Lambda) -> Value:
        return UNKNOWN

    def v_Tuple(self, node: ast.Tuple | ast.List | ast.Set) -> Value:
        parts = [self.value(e) for e in node.elts]
        return join(parts, text=parts[0].text if len(parts) == 1 else "")

    v_List = v_Set = v_Tuple

    def v_ListComp(self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> Value:
        listing = False
        saved = dict(self.env)
        for gen in node.generators:
            it = self.value(gen.iter)
            listing |= LISTING in it.flags
            for name in _target_names(gen.target):
                self.env[name] = it.plus(aliases=frozenset((name,)))
            for cond in gen.ifs:
                self.value(cond)
        elt = self.value(node.elt)
        self.env = saved
        return elt.plus(flags=frozenset((LISTING,))) if listing else elt

    v_GeneratorExp = v_SetComp = v_ListComp

    def v_DictComp(self, node: ast.DictComp) -> Value:
        saved = dict(self.env)
        for gen in node.generators:
            it = self.value(gen.iter)
            for name in _target_names(gen.target):
                self.env[name] = it
        out = join([self.value(node.key), self.value(node.value)])
        self.env = saved
        return out.with_text("")

    def v_NamedExpr(self, node: ast.NamedExpr) -> Value:
        v = self.value(node.value)
        self.env[node.target.id] = v
        return v


def copied(values: list[Value]) -> frozenset[str]:
    """COPIED when every part that holds state is a copy (a dict of `.cpu()` copies)."""
    state = [v for v in values if v.kinds]
    return frozenset((COPIED,)) if state and all(COPIED in v.flags for v in state) else frozenset()


def _is_number(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    )


def _is_last(index: ast.expr) -> bool:
    """`[-1]`: the last entry of a (sorted) listing."""
    return (
        isinstance(index, ast.UnaryOp)
        and isinstance(index.op, ast.USub)
        and isinstance(index.operand, ast.Constant)
        and index.operand.value == 1
    )


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _target_names(e)]
    return []
