"""A deliberately naive reference interpreter of the process language.

It shares nothing with the fast explorer but the AST and the resolver: expressions are
evaluated by walking the AST, transitions are recomputed in every state straight from the
rules of docs/semantics.md, nothing is cached or generated. The property tests compare its
verdicts, state counts and trace lengths with the explorer's on random small specs.
"""
from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from fito.lang import nodes as A
from fito.lang.resolve import CRASH, Model

TAU, TICK, EVENT = "tau", "tick", "event"
OMEGA, STOP, SKIP = ("omega",), ("stop",), ("skip",)


class RefFault(Exception):
    """A model error (the message is informative only)."""


class _NeedCells(Exception):
    pass


@dataclass(frozen=True)
class Tr:
    kind: str
    event: tuple | None                           # (channel, values...)
    writes: tuple                                 # ((slot, value), ...)
    crash: bool
    target: Callable[[tuple], tuple]              # post cells -> term
    checks: tuple = ()                            # ((value, type), ...) to check when taken


class Reference:
    """Naive semantics of one model."""

    def __init__(self, model: Model) -> None:
        self.m = model
        self.slots: dict[tuple, int] = {}
        self.types: list = []
        init: list[int] = []
        self.volatile: list[int] = []
        for name, cell in model.cells.items():
            for n, combo in enumerate(itertools.product(*(t.values() for t in cell.indices))):
                self.slots[(name,) + combo] = len(self.types)
                self.types.append(cell.type)
                init.append(cell.init[n])
                if not cell.durable:
                    self.volatile.append(len(self.types) - 1)
        self.init = tuple(init)

    # ------------------------------------------------------------------ expressions
    def ev(self, e: A.Expr, env: Mapping[str, int], cells: tuple | None) -> int:
        if isinstance(e, A.IntLit):
            return e.value
        if isinstance(e, A.BoolLit):
            return int(e.value)
        if isinstance(e, A.Name):
            if e.id in env:
                return env[e.id]
            if e.id in self.m.consts:
                return self.m.consts[e.id][1]
            if e.id in self.m.members:
                return self.m.members[e.id][1]
            return self._cell(e.id, (), cells)
        if isinstance(e, A.Index):
            idx = []
            root: A.Expr = e
            while isinstance(root, A.Index):
                idx.append(self.ev(root.index, env, cells))
                root = root.base
            return self._cell(root.id, tuple(reversed(idx)), cells)  # type: ignore[union-attr]
        if isinstance(e, A.Unary):
            v = self.ev(e.operand, env, cells)
            return -v if e.op == "-" else int(not v)
        if isinstance(e, A.Binary):
            return self._binary(e, env, cells)
        if isinstance(e, A.IfExpr):
            return self.ev(e.then if self.ev(e.cond, env, cells) else e.orelse, env, cells)
        if isinstance(e, A.Call):
            a, b = (self.ev(x, env, cells) for x in e.args)
            return min(a, b) if e.func == "min" else max(a, b)
        assert isinstance(e, A.Quant)
        for v in self.values(e.domain):
            got = bool(self.ev(e.body, {**env, e.var: v}, cells))
            if e.kind == "forall" and not got:
                return 0
            if e.kind == "exists" and got:
                return 1
        return int(e.kind == "forall")

    def _cell(self, name: str, idx: tuple, cells: tuple | None) -> int:
        slot = self.slots.get((name,) + idx)
        if slot is None:
            raise RefFault(f"index out of range: {name}{list(idx)}")
        if cells is None:
            raise _NeedCells()
        return cells[slot]

    def _binary(self, e: A.Binary, env: Mapping[str, int], cells: tuple | None) -> int:
        a = self.ev(e.left, env, cells)
        if e.op == "and":
            return int(bool(a) and bool(self.ev(e.right, env, cells)))
        if e.op == "or":
            return int(bool(a) or bool(self.ev(e.right, env, cells)))
        if e.op == "=>":
            return int((not a) or bool(self.ev(e.right, env, cells)))
        b = self.ev(e.right, env, cells)
        if e.op in ("/", "%"):
            if b == 0:
                raise RefFault("division by zero")
            return a // b if e.op == "/" else a % b
        return {"+": a + b, "-": a - b, "*": a * b, "==": int(a == b), "!=": int(a != b),
                "<": int(a < b), "<=": int(a <= b), ">": int(a > b), ">=": int(a >= b)}[e.op]

    def constant(self, e: A.Expr, env: Mapping[str, int]) -> int | None:
        """The value of e when it reads no cell (and raises no error), else None."""
        try:
            return self.ev(e, env, None)
        except (_NeedCells, RefFault):
            return None

    def values(self, t: A.TypeExpr) -> tuple[int, ...]:
        if isinstance(t, A.TypeName):
            return self.m.types[t.name].values()
        if isinstance(t, A.BoolType):
            return (0, 1)
        if isinstance(t, A.RangeType):
            return tuple(range(self.ev(t.lo, {}, None), self.ev(t.hi, {}, None) + 1))
        assert isinstance(t, A.SetType)
        return tuple(sorted({self.ev(x, {}, None) for x in t.items}))

    # ------------------------------------------------------------------ terms
    def env_for(self, node: object, env: Mapping[str, int]) -> tuple:
        names = _reads(node)
        return tuple(sorted((n, v) for n, v in env.items() if n in names))

    def make(self, p: A.Proc, env: Mapping[str, int], cells: tuple) -> tuple:
        if isinstance(p, A.Stop):
            return STOP
        if isinstance(p, A.Skip):
            return SKIP
        if isinstance(p, A.Prefix):
            return ("pre", id(p), self.env_for(p, env))
        if isinstance(p, A.ProcRef):
            decl = self.m.processes[p.name]
            args = [self.ev(a, env, cells) for a in p.args]
            return self.make(decl.body, {q.name: v for q, v in zip(decl.params, args)}, cells)
        if isinstance(p, (A.Guard, A.ProcIf)):
            c = self.constant(p.cond, env)
            if isinstance(p, A.Guard):
                if c is not None:
                    return self.make(p.body, env, cells) if c else STOP
                return ("guard", id(p), self.env_for(p.cond, env), self.make(p.body, env, cells))
            if c is not None:
                return self.make(p.then if c else p.orelse, env, cells)
            return ("if", id(p), self.env_for(p.cond, env), self.make(p.then, env, cells),
                    self.make(p.orelse, env, cells))
        if isinstance(p, A.ProcBinary):
            if p.op == ";":
                return ("seq", self.make(p.left, env, cells), id(p.right), self.env_for(p.right, env))
            left, right = self.make(p.left, env, cells), self.make(p.right, env, cells)
            return {"[]": _ext(left, right), "|~|": ("ichoice", (left, right)),
                    "/\\": ("intr", left, right), "|||": ("par", frozenset(), (left, right))}[p.op]
        if isinstance(p, A.Parallel):
            return ("par", frozenset(n.id for n in p.sync),  # type: ignore[union-attr]
                    (self.make(p.left, env, cells), self.make(p.right, env, cells)))
        if isinstance(p, A.Hide):
            return ("hide", frozenset(n.id for n in p.chans), self.make(p.proc, env, cells))  # type: ignore[union-attr]
        assert isinstance(p, A.Replicated)
        parts = [self.make(p.body, {**env, p.var: v}, cells) for v in self.values(p.domain)]
        if p.op == "[]":
            acc = parts[0] if parts else STOP
            for t in parts[1:]:
                acc = _ext(acc, t)
            return acc
        if p.op == "|~|":
            return ("ichoice", tuple(parts))
        sync = frozenset(n.id for n in p.sync) if p.op == "[||]" else frozenset()  # type: ignore[union-attr]
        return ("par", sync, tuple(parts))

    # ------------------------------------------------------------------ transitions
    def trans(self, t: tuple, cells: tuple) -> list[Tr]:
        tag = t[0]
        if tag in ("omega", "stop"):
            return []
        if tag == "skip":
            return [Tr(TICK, None, (), False, lambda post: OMEGA)]
        if tag == "pre":
            return self._prefix(t, cells)
        if tag == "ichoice":
            return [Tr(TAU, None, (), False, (lambda post, x=x: x)) for x in t[1]]
        if tag == "ext":
            out = []
            for i in (1, 2):
                for tr in self.trans(t[i], cells):
                    if tr.kind == TAU:
                        tr = _retarget(tr, lambda x, i=i: _ext(x, t[2]) if i == 1 else _ext(t[1], x))
                    out.append(tr)
            return out
        if tag == "seq":
            node = _NODES[t[2]]
            out = []
            for tr in self.trans(t[1], cells):
                if tr.kind == TICK:
                    out.append(Tr(TAU, None, (), False, lambda post: self.make(node, dict(t[3]), post)))
                else:
                    out.append(_retarget(tr, lambda x: ("seq", x, t[2], t[3])))
            return out
        if tag == "intr":
            out = [Tr(TICK, None, (), False, lambda post: OMEGA) if tr.kind == TICK
                   else _retarget(tr, lambda x: ("intr", x, t[2])) for tr in self.trans(t[1], cells)]
            out += [_retarget(tr, lambda x: ("intr", t[1], x)) if tr.kind == TAU else tr
                    for tr in self.trans(t[2], cells)]
            return out
        if tag == "hide":
            out = []
            for tr in self.trans(t[2], cells):
                if tr.kind == TICK:
                    out.append(Tr(TICK, None, (), False, lambda post: OMEGA))
                    continue
                tr = _retarget(tr, lambda x: ("hide", t[1], x))
                if tr.kind == EVENT and tr.event[0] in t[1]:  # type: ignore[index]
                    tr = Tr(TAU, None, tr.writes, tr.crash, tr.target, tr.checks)
                out.append(tr)
            return out
        if tag == "par":
            return self._par(t, cells)
        node = _NODES[t[1]]
        c = self.ev(node.cond, dict(t[2]), cells)  # type: ignore[attr-defined]
        if tag == "guard":
            return self.trans(t[3], cells) if c else []
        return self.trans(t[3] if c else t[4], cells)

    def _prefix(self, t: tuple, cells: tuple) -> list[Tr]:
        node: A.Prefix = _NODES[t[1]]  # type: ignore[assignment]
        env = dict(t[2])
        if node.event is None:
            return [Tr(TAU, None, self._writes(node.assigns, env, cells), False,
                       lambda post: self.make(node.body, env, post))]
        ev = node.event
        chan = self.m.channels[ev.channel]
        inputs = [(i, f) for i, f in enumerate(ev.fields) if isinstance(f, A.InField)]
        choices = [self.values(f.restriction) if f.restriction is not None else chan.fields[i].values()
                   for i, f in inputs]
        out = []
        for combo in itertools.product(*choices):
            inner = dict(env)
            given = {}
            for (i, f), v in zip(inputs, combo):
                inner[f.var] = v
                given[i] = v
            values, checks = [], []
            for i, f in enumerate(ev.fields):
                if i in given:
                    values.append(given[i])
                else:
                    v = self.ev(f.value, inner, cells)  # type: ignore[union-attr]
                    values.append(v)
                    checks.append((v, chan.fields[i]))
            out.append(Tr(EVENT, (ev.channel, *values), self._writes(node.assigns, inner, cells),
                          ev.channel == CRASH, lambda post, inner=inner: self.make(node.body, inner, post),
                          tuple(checks)))
        return out

    def _writes(self, assigns: tuple[A.Assign, ...], env: Mapping[str, int], cells: tuple) -> tuple:
        out = []
        for a in assigns:
            idx = []
            root: A.Expr = a.target
            while isinstance(root, A.Index):
                idx.append(self.ev(root.index, env, cells))
                root = root.base
            slot = self.slots.get((root.id,) + tuple(reversed(idx)))  # type: ignore[union-attr]
            value = self.ev(a.value, env, cells)
            if slot is None:
                raise RefFault("index out of range in an assignment")
            out.append((slot, value))
        return tuple(out)

    def _par(self, t: tuple, cells: tuple) -> list[Tr]:
        _, sync, parts = t
        out: list[Tr] = []
        offers: list[list[Tr]] = []
        for i, part in enumerate(parts):
            mine = []
            for tr in self.trans(part, cells):
                if tr.kind == EVENT and tr.event[0] in sync:  # type: ignore[index]
                    mine.append(tr)
                    continue
                if tr.kind == TICK:
                    tr = Tr(TAU, None, (), False, lambda post: OMEGA)
                out.append(_retarget(tr, lambda x, i=i: ("par", sync, parts[:i] + (x,) + parts[i + 1:])))
            offers.append(mine)
        events = sorted({tr.event for tr in offers[0]}, key=repr) if offers else []
        for event in events:
            per_part = [[tr for tr in o if tr.event == event] for o in offers]
            for combo in itertools.product(*per_part):
                out.append(Tr(EVENT, event, sum((c.writes for c in combo), ()),
                              any(c.crash for c in combo),
                              lambda post, combo=combo: ("par", sync, tuple(c.target(post) for c in combo)),
                              sum((c.checks for c in combo), ())))
        if all(p == OMEGA for p in parts):
            out.append(Tr(TICK, None, (), False, lambda post: OMEGA))
        return out

    # ------------------------------------------------------------------ firing
    def fire(self, tr: Tr, cells: tuple) -> tuple[tuple, tuple]:
        """(term after, cells after) of a transition taken in cells."""
        for value, vtype in tr.checks:
            if not vtype.contains(value):
                raise RefFault("channel value out of range")
        post = list(cells)
        if tr.crash:
            for s in self.volatile:
                post[s] = self.init[s]
        written: dict[int, int] = {}
        for slot, value in tr.writes:
            if slot in written and written[slot] != value:
                raise RefFault("conflicting writes")
            if not self.types[slot].contains(value):
                raise RefFault("value out of range")
            written[slot] = value
            post[slot] = value
        post_t = tuple(post)
        return tr.target(post_t), post_t


_NODES: dict[int, object] = {}


def _retarget(tr: Tr, wrap: Callable[[tuple], tuple]) -> Tr:
    inner = tr.target
    return Tr(tr.kind, tr.event, tr.writes, tr.crash, lambda post: wrap(inner(post)), tr.checks)


def _reads(node: object) -> set[str]:
    out: set[str] = set()

    def walk(n: object, bound: frozenset[str]) -> None:
        if isinstance(n, A.Name):
            if n.id not in bound:
                out.add(n.id)
        elif isinstance(n, (A.Quant, A.Replicated)):
            walk(n.domain, bound)
            walk(getattr(n, "sync", ()), bound)
            walk(n.body, bound | {n.var})
        elif isinstance(n, A.Prefix):
            inner = bound
            for f in (n.event.fields if n.event else ()):
                if isinstance(f, A.InField):
                    walk(f.restriction, bound)
                    inner = inner | {f.var}
                else:
                    walk(f.value, inner)
            walk(n.assigns, inner)
            walk(n.body, inner)
        elif isinstance(n, tuple):
            for x in n:
                walk(x, bound)
        elif hasattr(n, "__slots__"):
            for name in n.__slots__:  # type: ignore[union-attr]
                if name not in ("span", "name_span", "name_spans"):
                    walk(getattr(n, name), bound)

    walk(node, frozenset())
    return out


def _register(node: object) -> None:
    for n in _walk_nodes(node):
        _NODES[id(n)] = n


def _walk_nodes(node: object):  # type: ignore[no-untyped-def]
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif hasattr(n, "__slots__"):
            yield n
            stack.extend(getattr(n, s) for s in n.__slots__ if s not in ("span", "name_span", "name_spans"))


# ---------------------------------------------------------------------- the naive search
@dataclass(frozen=True)
class RefResult:
    verdict: str          # holds | fails
    states: int
    trace_length: int


def _ext(left: tuple, right: tuple) -> tuple:
    """`P [] Q` with the same three laws as the fast engine (STOP a unit, flattened,
    repeated stable operands dropped), restated here on plain nested tuples."""
    if left == STOP:
        return right
    if right == STOP:
        return left
    kept: list[tuple] = []
    for o in _operands(left) + _operands(right):
        if o in kept and _stable(o):
            continue
        kept.append(o)
    acc = kept[0]
    for o in kept[1:]:
        acc = ("ext", acc, o)
    return acc


def _operands(t: tuple) -> list[tuple]:
    if t[0] != "ext":
        return [t]
    return _operands(t[1]) + _operands(t[2])


def _stable(t: tuple) -> bool:
    """No initial tau, decided from the form of the term (see _kinds)."""
    return _kinds(t)[0]


def _kinds(t: tuple) -> tuple[bool, bool]:
    """(no initial tau, no initial tick): SKIP ticks; an assignment prefix, |~| and hiding
    may step silently; a sequence or parallel turns its parts' ticks into taus."""
    tag = t[0]
    if tag in ("stop", "omega"):
        return True, True
    if tag == "skip":
        return True, False
    if tag == "pre":
        return _NODES[t[1]].event is not None, True  # type: ignore[attr-defined]
    if tag == "ichoice":
        return False, True
    if tag == "guard":
        return _kinds(t[3])
    if tag in ("if", "intr", "ext"):
        a, b = _kinds(t[-2]), _kinds(t[-1])
        return a[0] and b[0], a[1] and b[1]
    if tag == "seq":
        a = _kinds(t[1])
        return a[0] and a[1], True
    if tag == "par":
        parts = [_kinds(p) for p in t[2]]
        return all(x and y for x, y in parts), not all(p == OMEGA for p in t[2])
    return False, _kinds(t[2])[1]


class RefLimit(Exception):
    """More states than the caller allowed."""


def check(model: Model, a: A.AssertDecl, max_states: int | None = None,
          max_seconds: float | None = None) -> RefResult:
    """Decide one assertion by plain BFS (the reference for the property tests).

    Raises RefLimit when more than max_states states are reached or max_seconds pass."""
    import time

    deadline = None if max_seconds is None else time.monotonic() + max_seconds

    def over() -> bool:
        return deadline is not None and time.monotonic() > deadline

    _register(model.spec)
    ref = Reference(model)
    proc = a.proc if a.proc is not None else model.system
    assert proc is not None
    if a.kind == "refines":
        return _refines(ref, a, proc, max_states, over)
    pred = None if a.expr is None else (lambda cells: ref.ev(a.expr, {}, cells))
    try:
        root = (ref.make(proc, {}, ref.init), ref.init)
    except RefFault:
        return RefResult("fails", 1, 0)
    if pred is not None:
        try:
            hit = bool(pred(root[1]))
        except RefFault:
            return RefResult("fails", 1, 0)
        if hit != (a.kind == "always"):
            return RefResult("holds" if a.kind == "reaches" else "fails", 1, 0)
    seen = {root: 0}
    frontier = [root]
    depth = 0
    best: tuple[int, str] | None = None   # (length, kind): kind error, goal or deadlock

    def offer(length: int, kind: str) -> None:
        nonlocal best
        if best is None or length < best[0] or (length == best[0] and kind == "error" != best[1]):
            best = (length, kind)

    while frontier:
        nxt = []
        for term, cells in frontier:
            try:
                trs = ref.trans(term, cells)
            except RefFault:
                offer(depth, "error")
                continue
            try:
                fired = [ref.fire(tr, cells) for tr in trs]
            except RefFault:
                offer(depth + 1, "error")
                continue
            if not fired and a.kind == "deadlock" and term != OMEGA:
                offer(depth, "deadlock")
            for state in fired:
                if state in seen:
                    continue
                seen[state] = depth + 1
                if (max_states is not None and len(seen) > max_states) or (len(seen) & 63 == 0 and over()):
                    raise RefLimit()
                nxt.append(state)
                if pred is not None:
                    try:
                        hit = bool(pred(state[1]))
                    except RefFault:
                        offer(depth + 1, "error")
                        continue
                    if hit != (a.kind == "always"):
                        offer(depth + 1, "goal")
        depth += 1
        if best is not None:
            ok = a.kind == "reaches" and best[1] == "goal"
            return RefResult("holds" if ok else "fails", len(seen), best[0])
        frontier = nxt
    return RefResult("fails" if a.kind == "reaches" else "holds", len(seen), 0)


def _refines(ref: Reference, a: A.AssertDecl, impl: A.Proc, max_states: int | None,
             over: Callable[[], bool]) -> RefResult:
    assert a.spec is not None

    def closure(states: set) -> frozenset:
        todo, seen = list(states), set(states)
        while todo:
            term, cells = todo.pop()
            for tr in ref.trans(term, cells):
                if tr.kind == TAU:
                    s = ref.fire(tr, cells)
                    if s not in seen:
                        seen.add(s)
                        todo.append(s)
        return frozenset(seen)

    def after(node: frozenset, event: tuple) -> frozenset:
        nxt = set()
        for term, cells in node:
            for tr in ref.trans(term, cells):
                key = ("tick",) if tr.kind == TICK else tr.event
                if tr.kind != TAU and key == event:
                    nxt.add(ref.fire(tr, cells))
        return closure(nxt) if nxt else frozenset()

    spec_root = closure({(ref.make(a.spec, {}, ref.init), ref.init)})
    root = ((ref.make(impl, {}, ref.init), ref.init), spec_root)
    seen = {root}
    queue = deque([(root, 0)])
    best = None
    level_end = 0
    while queue:
        (state, node), depth = queue.popleft()
        if best is not None and depth >= level_end:
            break
        term, cells = state
        try:
            trs = ref.trans(term, cells)
            fired = [(tr, ref.fire(tr, cells)) for tr in trs]
        except RefFault:
            best = depth + 1 if best is None else min(best, depth + 1)
            level_end = depth + 1
            continue
        for tr, s in fired:
            if tr.kind == TAU:
                nnode = node
            else:
                nnode = after(node, ("tick",) if tr.kind == TICK else tr.event)
                if not nnode:
                    if best is None:
                        best, level_end = depth + 1, depth + 1
                    continue
            if (s, nnode) not in seen:
                seen.add((s, nnode))
                if (max_states is not None and len(seen) > max_states) or (len(seen) & 63 == 0 and over()):
                    raise RefLimit()
                queue.append(((s, nnode), depth + 1))
    if best is not None:
        return RefResult("fails", len(seen), best)
    return RefResult("holds", len(seen), 0)
