"""Sends and receives on buffered channels: internal steps of one process over the buffer's
slots in the store (fito/semantics/state/layout.py: a length and N message slots per field).

`q!v` is enabled while len(q) < N and writes the message at position len(q); `q?x` is
enabled while the oldest message matches (value fields equal, restricted inputs contain
it), binds the inputs (one step per value of an input the rest of the process reads; an
input nobody reads is not expanded) and shifts the messages down (docs/semantics.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING

from fito.lang import nodes as A
from fito.semantics.ir import IR, conjoin, disjoin, fold
from fito.semantics.rules.refusal import check_expansion
from fito.semantics.rules.step import TAU, Step, Write, may_collide
from fito.semantics.terms.program import names_read

if TYPE_CHECKING:
    from fito.semantics.rules.prefixes import Prefixes


def buffer_steps(p: Prefixes, node: A.Prefix, env: Mapping[str, object]) -> list[Step]:
    ev = node.event
    assert ev is not None
    chan = p.model.channels[ev.channel]
    b = p.compiler.layout.buffers[ev.channel]
    k = chan.arrays
    index = [f.value for f in ev.fields[:k]]  # type: ignore[union-attr]
    err = p.sites.add("M007", f"index out of range in '{ev.channel}'", ev.span)
    length = p.compiler.element(b.length, index, env, err)
    idx = tuple(p.compiler.compile(x, env) for x in index)
    if not any(isinstance(f, A.InField) for f in ev.fields):
        return _send(p, node, env, b, index, idx, length, err)
    return _receive(p, node, env, b, index, idx, length, err)


def _send(
    p: Prefixes,
    node: A.Prefix,
    env: Mapping[str, object],
    b: object,
    index: list,
    idx: tuple[IR, ...],
    length: IR,
    err: int,
) -> list[Step]:
    ev = node.event
    assert ev is not None
    k = b.arrays  # type: ignore[attr-defined]
    chan = p.model.channels[ev.channel]
    values, checks = p.fields(
        A.Event(ev.channel, ev.fields[k:], span=ev.span), env, chan.fields[k:], {}
    )
    writes = [
        _put(p, b.fields[f], index, env, length, v, err, b.name)  # type: ignore[attr-defined]
        for f, v in enumerate(values)
    ]
    writes.append(_length(p, b, index, env, fold(("op", "+", length, ("k", 1), -1)), err))
    user, rebinds = p.writes(node.assigns, env)
    guard = fold(("op", "<", length, ("k", b.capacity), -1))  # type: ignore[attr-defined]
    step = Step(
        TAU,
        None,
        (),
        (guard,),
        tuple(writes) + user,
        False,
        None,
        checks=checks,
        conflict=may_collide(user),
        label=("send", ev.channel, idx, values),
    )
    return p._finish(step, node.body, env, rebinds)


def _receive(
    p: Prefixes,
    node: A.Prefix,
    env: Mapping[str, object],
    b: object,
    index: list,
    idx: tuple[IR, ...],
    length: IR,
    err: int,
) -> list[Step]:
    ev = node.event
    assert ev is not None
    k = b.arrays  # type: ignore[attr-defined]
    chan = p.model.channels[ev.channel]
    heads = [p.compiler.element(key, index + [A.IntLit(0)], env, err) for key in b.fields]  # type: ignore[attr-defined]
    used = names_read(node.body) | names_read(node.assigns)
    conds: list[IR] = [fold(("op", ">", length, ("k", 0), -1))]
    expand: list[tuple[str, tuple[int, ...], IR]] = []
    for f, head, ftype in zip(ev.fields[k:], heads, chan.fields[k:]):
        if not isinstance(f, A.InField):
            conds.append(fold(("op", "==", head, p.compiler.compile(f.value, env), -1)))
            continue
        values = p.input_values(f, ftype)
        if f.var in used:
            expand.append((f.var, values, head))
        elif f.restriction is not None:
            conds.append(disjoin([fold(("op", "==", head, ("k", v), -1)) for v in values]))
    shift = _shift(p, b, index, env, length, err)
    total = 1
    for _, values, _ in expand:
        total *= len(values)
    check_expansion(total, f"the input of '{ev.channel}'", ev.span)
    out = []
    for combo in itertools.product(*(values for _, values, _ in expand)):
        inner = {**env, **{name: v for (name, _, _), v in zip(expand, combo)}}
        match = [fold(("op", "==", head, ("k", v), -1)) for (_, _, head), v in zip(expand, combo)]
        bound = {name for name, _, _ in expand}
        shown = tuple(
            ("k", inner[f.var]) if isinstance(f, A.InField) and f.var in bound else h
            for f, h in zip(ev.fields[k:], heads)
        )
        user, rebinds = p.writes(node.assigns, inner)
        step = Step(
            TAU,
            None,
            (),
            (conjoin(conds + match),),
            shift + user,
            False,
            None,
            conflict=may_collide(user),
            label=("recv", ev.channel, idx, shown),
        )
        out += p._finish(step, node.body, inner, rebinds)
    return out


def _shift(
    p: Prefixes, b: object, index: list, env: Mapping[str, object], length: IR, err: int
) -> tuple[Write, ...]:
    """The messages moved one place towards the head; the last slot cleared; len - 1."""
    n = b.capacity  # type: ignore[attr-defined]
    out = []
    for key in b.fields:  # type: ignore[attr-defined]
        for m in range(n):
            value = (
                p.compiler.element(key, index + [A.IntLit(m + 1)], env, err)
                if m + 1 < n
                else ("k", 0)
            )
            out.append(_put(p, key, index, env, ("k", m), value, err, b.name))  # type: ignore[attr-defined]
    out.append(_length(p, b, index, env, fold(("op", "-", length, ("k", 1), -1)), err))
    return tuple(out)


def _put(
    p: Prefixes,
    key: str,
    index: list,
    env: Mapping[str, object],
    position: IR,
    value: IR,
    err: int,
    name: str,
) -> Write:
    """message slot `key[index][position] := value` (position an IR)."""
    irs = tuple(p.compiler.compile(x, env) for x in index) + (position,)
    slots = p.compiler.layout.cells[key]
    if all(x[0] == "k" for x in irs):
        slot = slots.slot(tuple(x[1] for x in irs))
        loc: IR = ("c", slot) if slot is not None else ("fault", err, "index")
    else:
        loc = ("cd", key, irs, err)
    return Write(loc, value, slots.cell.type, -1, name)


def _length(
    p: Prefixes, b: object, index: list, env: Mapping[str, object], value: IR, err: int
) -> Write:
    key = b.length  # type: ignore[attr-defined]
    loc = p.compiler.element(key, index, env, err)
    return Write(loc, value, p.compiler.layout.cells[key].cell.type, -1, b.name)  # type: ignore[attr-defined]
