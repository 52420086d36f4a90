"""The reference interpreter's terms: making them from the AST and their transitions.

Terms are plain nested tuples. A closure of a node is `(tag, id(node), env)` with env the
sorted `(name, value)` pairs of the bound names it reads, plus `("@act", k)` and
`("@def", d)` inside a definition that has variables (docs/semantics.md). Nothing is cached:
transitions are recomputed in every state straight from the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from fito.lang import nodes as A
from fito.lang.resolve.loops import loop_calls, recurrent_operands, start_nodes
from fito.lang.resolve.model import Model
from fito.reference.expressions import Evaluator, images, member
from fito.reference.steps import EVENT, TAU, TICK, StepRules, Tr, retarget, to
from fito.reference.store import (
    ACT,
    DEF,
    Act,
    Frame,
    RefFault,
    Store,
    canonical,
    index_combos,
)

OMEGA, STOP, SKIP = ("omega",), ("stop",), ("skip",)
_STEPS = (A.Prefix, A.AssertStep, A.Atomic)


class Reference(StepRules, Evaluator):
    """Naive semantics of one model."""

    def __init__(self, model: Model) -> None:
        super().__init__(model)
        self.nodes: dict[int, object] = {}
        self.loop_calls: set[int] = set()
        self.var_params = {}
        self.read_names: dict[int, frozenset[str]] = {}
        for n in _walk_nodes(model.spec):
            self.nodes[id(n)] = n
        self.recurrent: set[int] = set()
        self.ends: set[int] = set()  # the start nodes of `end` processes
        constants = set(model.consts) | set(model.members)
        for name, decl in model.processes.items():
            self.loop_calls.update(id(c) for c in loop_calls(decl))
            self.recurrent.update(id(n) for n in recurrent_operands(decl, constants))
            if name in model.end_processes:
                self.ends.update(id(n) for n in start_nodes(decl, constants))
            params = {v.name: v.type for v in model.variables.get(name, ()) if v.init is None}
            if params:  # the `var` parameters each assignment of the body may write
                self.var_params.update(
                    (id(n), params) for n in _walk_nodes(decl.body) if isinstance(n, A.Assign)
                )

    # ------------------------------------------------------------------ making terms
    def env_for(self, node: object, env: Mapping[str, int]) -> tuple:
        """The closure environment: the bound names the node reads (a syntactic fact of the
        program, computed once per node), and the activation."""
        names = self.read_names.get(id(node))
        if names is None:
            names = self.read_names[id(node)] = frozenset(_reads(node) | {ACT, DEF})
        return tuple(sorted((n, v) for n, v in env.items() if n in names))

    def root(self, p: A.Proc) -> tuple[tuple, Store]:
        """The initial state of process p."""
        term, store = self.make(p, {}, self.init)
        return canonical(term, store)

    def make(self, p: A.Proc, env: Mapping[str, int], store: Store) -> tuple[tuple, Store]:
        if isinstance(p, A.Stop):
            return STOP, store
        if isinstance(p, A.Skip):
            return SKIP, store
        if isinstance(p, _STEPS):
            return ("pre", id(p), self.env_for(p, env)), store
        if isinstance(p, A.ProcRef):
            try:
                return self._unfold(p, env, store)
            except RefFault as exc:  # a failed call: a state holding it is that model error
                return ("err", str(exc)), store
        if isinstance(p, (A.Guard, A.ProcIf)):
            return self._conditional(p, env, store)
        if isinstance(p, A.ProcBinary):
            return self._make_binary(p, env, store)
        if isinstance(p, A.Select):
            parts, store = self._make_all(p.branches, env, store)
            orelse = None
            if p.orelse is not None:
                orelse, store = self.make(p.orelse, env, store)
            return ("sel", parts, orelse), store
        if isinstance(p, (A.Parallel, A.AlphaParallel)):
            parts, store = self._make_all((p.left, p.right), env, store)
            if isinstance(p, A.Parallel):
                return ("par", self.events_of(p.sync, env), parts), store
            alphas = (self.events_of(p.left_alpha, env), self.events_of(p.right_alpha, env))
            return ("apar", alphas, parts), store
        if isinstance(p, (A.Hide, A.Rename)):
            inner, store = self.make(p.proc, env, store)
            if isinstance(p, A.Hide):
                return ("hide", self.events_of(p.chans, env), inner), store
            return ("rename", self.renaming(p.pairs, env), inner), store
        assert isinstance(p, A.Replicated)
        return self._replicated(p, env, store)

    def _make_all(
        self, ps: tuple[A.Proc, ...], env: Mapping[str, int], store: Store
    ) -> tuple[tuple, Store]:
        out = []
        for q in ps:
            t, store = self.make(q, env, store)
            out.append(t)
        return tuple(out), store

    def _unfold(self, p: A.ProcRef, env: Mapping[str, int], store: Store) -> tuple[tuple, Store]:
        """Unfold a call: a definition with variables gets a new activation, unless this is
        a call of the definition from its own body outside any parallel operator."""
        decl = self.m.processes[p.name]
        args = [self.ev(a, env, store) for a in p.args]
        inner: dict[str, int] = {q.name: v for q, v in zip(decl.params, args)}
        for v, t in zip(args, self.m.param_types.get(p.name, ())):
            if not t.contains(v):
                raise RefFault(f"argument {v} of '{p.name}' is out of range")
        frame = self.frames.get(p.name)
        if frame is None:
            return self.make(decl.body, inner, store)
        if id(p) in self.loop_calls and ACT in env:
            k = env[ACT]
            acts = store.acts
        else:
            k = len(store.acts)
            init = self._initial(frame, inner, store)
            for v, t in zip(init, frame.types):
                if not t.contains(v):
                    raise RefFault(f"initial value {v} out of range in '{p.name}'")
            acts = store.acts + (Act(p.name, init, init),)
        inner[ACT], inner[DEF] = k, self.proc_names.index(p.name)
        return self.make(decl.body, inner, Store(store.cells, store.bufs, acts))

    def _initial(self, frame: Frame, params: Mapping[str, int], store: Store) -> tuple[int, ...]:
        """Initial values of a new activation, from the declarations (which read constants
        and parameters)."""
        vals: list[int] = []
        for v in frame.variables:
            assert v.init is not None
            for idx in index_combos(v.indices):
                vals.append(self.ev(v.init, {**params, **dict(zip(v.index_names, idx))}, store))
        return tuple(vals)

    def _conditional(
        self, p: A.Guard | A.ProcIf, env: Mapping[str, int], store: Store
    ) -> tuple[tuple, Store]:
        c = self.constant(p.cond, env)
        if isinstance(p, A.Guard):
            if c is not None:
                return self.make(p.body, env, store) if c else (STOP, store)
            body, store = self.make(p.body, env, store)
            return ("guard", id(p), self.env_for(p.cond, env), body), store
        if c is not None:
            return self.make(p.then if c else p.orelse, env, store)
        (then, orelse), store = self._make_all((p.then, p.orelse), env, store)
        return ("if", id(p), self.env_for(p.cond, env), then, orelse), store

    def _make_binary(
        self, p: A.ProcBinary, env: Mapping[str, int], store: Store
    ) -> tuple[tuple, Store]:
        if p.op in (";", "[>"):
            left, store = self.make(p.left, env, store)
            tag = "seq" if p.op == ";" else "slide"
            return (tag, left, id(p.right), self.env_for(p.right, env)), store
        (left, right), store = self._make_all((p.left, p.right), env, store)
        term = {
            "[]": lambda: ext(left, right, self),
            "|~|": lambda: ("ichoice", (left, right)),
            "/\\": lambda: ("intr", left, right),
            "|||": lambda: ("par", frozenset(), (left, right)),
        }[p.op]()
        return term, store

    def _replicated(
        self, p: A.Replicated, env: Mapping[str, int], store: Store
    ) -> tuple[tuple, Store]:
        values = self.values(p.domain)
        envs = [{**env, p.var: v} for v in values]
        parts = []
        for e in envs:
            t, store = self.make(p.body, e, store)
            parts.append(t)
        if p.op == "[]":
            acc = parts[0] if parts else STOP
            for t in parts[1:]:
                acc = ext(acc, t, self)
            return acc, store
        if p.op == "|~|":
            return ("ichoice", tuple(parts)), store
        if p.op == "||":
            assert p.sync is not None
            return ("apar", tuple(self.events_of(p.sync, e) for e in envs), tuple(parts)), store
        sync = self.events_of(p.sync, env) if p.op == "[||]" and p.sync else frozenset()
        return ("par", sync, tuple(parts)), store

    # ------------------------------------------------------------------ transitions
    def trans(self, t: tuple, store: Store) -> list[Tr]:
        tag = t[0]
        if tag in ("omega", "stop"):
            return []
        if tag == "err":
            raise RefFault(t[1])
        if tag == "skip":
            return [Tr(TICK, (), (), False, to(OMEGA))]
        if tag == "pre":
            return self.step(self.nodes[t[1]], dict(t[2]), store)  # type: ignore[arg-type]
        if tag == "ichoice":
            return [Tr(TAU, (), (), False, to(x)) for x in t[1]]
        if tag == "ext":
            return self._ext_trans(t, store)
        if tag in ("seq", "slide"):
            return self._seq_trans(t, store)
        if tag == "intr":
            out = [
                Tr(TICK, (), (), False, to(OMEGA))
                if tr.kind == TICK
                else retarget(tr, lambda x: ("intr", x, t[2]))
                for tr in self.trans(t[1], store)
            ]
            out += [
                retarget(tr, lambda x: ("intr", t[1], x)) if tr.kind == TAU else tr
                for tr in self.trans(t[2], store)
            ]
            return out
        if tag in ("hide", "rename"):
            return self._relabel(t, store)
        if tag == "par":
            return self.synchronise(t[2], None, t[1], lambda ps: ("par", t[1], ps), store)
        if tag == "apar":
            return self.synchronise(t[2], t[1], frozenset(), lambda ps: ("apar", t[1], ps), store)
        if tag == "sel":
            out = [tr for b in t[1] for tr in self.trans(b, store)]
            return out if out or t[2] is None else self.trans(t[2], store)
        node = self.nodes[t[1]]
        c = self.ev(node.cond, dict(t[2]), store)  # type: ignore[attr-defined]
        if tag == "guard":
            return self.trans(t[3], store) if c else []
        return self.trans(t[3] if c else t[4], store)

    def _ext_trans(self, t: tuple, store: Store) -> list[Tr]:
        out = []
        keep: tuple[Callable[[tuple], tuple], ...] = (
            lambda x: ext(x, t[2], self),
            lambda x: ext(t[1], x, self),
        )
        for i in (1, 2):
            for tr in self.trans(t[i], store):
                out.append(retarget(tr, keep[i - 1]) if tr.kind == TAU else tr)
        return out

    def _seq_trans(self, t: tuple, store: Store) -> list[Tr]:
        """`P ; Q` (P's tick is a tau to Q) and `P [> Q` (P's taus keep it, its events and
        tick resolve it, and a tau leads to Q)."""
        tag, left, right, env = t
        node = self.nodes[right]
        out = []
        for tr in self.trans(left, store):
            if tag == "seq" and tr.kind == TICK:
                out.append(Tr(TAU, (), (), False, self._then(node, dict(env))))  # type: ignore[arg-type]
            elif tag == "seq" or tr.kind == TAU:
                out.append(retarget(tr, lambda x: (tag, x, right, env)))
            else:
                out.append(tr)
        if tag == "slide":
            out.append(Tr(TAU, (), (), False, self._then(node, dict(env))))  # type: ignore[arg-type]
        return out

    def _relabel(self, t: tuple, store: Store) -> list[Tr]:
        """Hiding (events of the set become taus) and renaming (events related to others
        become those, one transition per related event); a tick ends either."""
        tag, rel, inner = t
        out = []
        for tr in self.trans(inner, store):
            if tr.kind == TICK:
                out.append(Tr(TICK, (), (), False, to(OMEGA)))
                continue
            tr = retarget(tr, lambda x: (tag, rel, x))
            if tr.kind != EVENT:
                out.append(tr)
            elif tag == "hide":
                out.append(
                    Tr(TAU, (), tr.writes, tr.crash, tr.target, tr.checks, tr.fault)
                    if member(tr.event, rel)
                    else tr
                )
            else:
                out.extend(
                    Tr(EVENT, b, tr.writes, tr.crash, tr.target, tr.checks, tr.fault)
                    for b in images(tr.event, rel)
                )
        return out

    # ------------------------------------------------------------------ firing
    def fire(self, tr: Tr, store: Store) -> tuple[tuple, Store]:
        """(term after, store after) of a transition taken in store, canonical."""
        for value, vtype in tr.checks:
            if not vtype.contains(value):
                raise RefFault("channel value out of range")
        if tr.fault is not None:
            raise RefFault(tr.fault)
        post = self.crashed(store) if tr.crash else store
        if tr.buffer is not None:
            bufs = list(post.bufs)
            b = tr.buffer[1]
            bufs[b] = bufs[b] + (tr.buffer[2],) if tr.buffer[0] == "push" else bufs[b][1:]
            post = Store(post.cells, tuple(bufs), post.acts)
        written: dict[tuple, int] = {}
        for loc, value in tr.writes:
            if not self.type_at(loc, post).contains(value):
                raise RefFault("value out of range")
            if loc[0] == "v":  # a `var` parameter of one component: in its target already
                continue
            if loc in written and written[loc] != value:
                raise RefFault("conflicting writes")
            written[loc] = value
        post = _apply(post, written)
        term, post = tr.target(post)
        return canonical(term, post)

    def crashed(self, store: Store) -> Store:
        """Every volatile cell, buffer and process variable back to its initial value."""
        cells = list(store.cells)
        for s in self.volatile:
            cells[s] = self.init.cells[s]
        bufs = tuple(
            () if not self.m.channels[name].durable else q
            for (name, _), q in zip(self.buffers, store.bufs)
        )
        acts = tuple(
            Act(
                a.proc,
                a.init,
                tuple(
                    v if d else i for v, i, d in zip(a.vals, a.init, self.frames[a.proc].durable)
                ),
            )
            for a in store.acts
        )
        return Store(tuple(cells), bufs, acts)


def _apply(store: Store, written: Mapping[tuple, int]) -> Store:
    if not written:
        return store
    cells = list(store.cells)
    acts = [list(a.vals) for a in store.acts]
    for loc, value in written.items():
        if loc[0] == "c":
            cells[loc[1]] = value
        else:
            acts[loc[1]][loc[2]] = value
    return Store(
        tuple(cells),
        store.bufs,
        tuple(Act(a.proc, a.init, tuple(v)) for a, v in zip(store.acts, acts)),
    )


# ---------------------------------------------------------------------- external choice
def ext(left: tuple, right: tuple, ref: Reference) -> tuple:
    """`P [] Q` with the engine's four laws (STOP a unit, flattened, repeated stable
    operands and repeated operands that return to their choice dropped), restated here on
    plain nested tuples."""
    if left == STOP:
        return right
    if right == STOP:
        return left
    kept: list[tuple] = []
    for o in _operands(left) + _operands(right):
        if o in kept and (kinds(o, ref)[0] or (o[0] in ("pre", "guard") and o[1] in ref.recurrent)):
            continue
        kept.append(o)
    acc = kept[0]
    for o in kept[1:]:
        acc = ("ext", acc, o)
    return acc


def at_end(t: tuple, ref: Reference) -> bool:
    """Whether a term waits at a valid end location (`end P`): made of the start nodes of
    `end` processes, or a parallel composition of such terms and Ω (the engine's rule,
    restated on nested tuples)."""
    tag = t[0]
    if tag in ("pre", "guard"):
        return t[1] in ref.ends
    if tag == "ext":
        return at_end(t[1], ref) and at_end(t[2], ref)
    if tag == "sel":
        parts = t[1] + ((t[2],) if t[2] is not None else ())
        return all(p == OMEGA or at_end(p, ref) for p in parts)
    if tag in ("par", "apar"):
        return all(p == OMEGA or at_end(p, ref) for p in t[2])
    if tag in ("hide", "rename"):
        return at_end(t[2], ref)
    return False


def _operands(t: tuple) -> list[tuple]:
    if t[0] != "ext":
        return [t]
    return _operands(t[1]) + _operands(t[2])


def kinds(t: tuple, ref: Reference) -> tuple[bool, bool]:
    """(no initial tau, no initial tick), decided by the form of the term: SKIP ticks; an
    assignment, assert, atomic or buffer step, |~|, [> and hiding may step silently; a
    sequence or parallel turns its parts' ticks into taus."""
    tag = t[0]
    if tag in ("stop", "omega", "err"):
        return True, True
    if tag == "skip":
        return True, False
    if tag == "pre":
        node = ref.nodes[t[1]]
        visible = (
            isinstance(node, A.Prefix)
            and node.event is not None
            and not ref.m.channels[node.event.channel].buffered
        )
        return visible, True
    if tag == "ichoice":
        return False, True
    if tag == "guard":
        return kinds(t[3], ref)
    if tag in ("if", "intr", "ext"):
        a, b = kinds(t[-2], ref), kinds(t[-1], ref)
        return a[0] and b[0], a[1] and b[1]
    if tag == "sel":
        parts = [kinds(x, ref) for x in t[1] + ((t[2],) if t[2] is not None else ())]
        return all(x for x, _ in parts), all(y for _, y in parts)
    if tag == "seq":
        a = kinds(t[1], ref)
        return a[0] and a[1], True
    if tag in ("par", "apar"):
        parts = [kinds(p, ref) for p in t[2]]
        return all(x and y for x, y in parts), not all(p == OMEGA for p in t[2])
    if tag == "rename":
        return kinds(t[2], ref)
    if tag == "slide":
        return False, kinds(t[1], ref)[1]
    return False, kinds(t[2], ref)[1]  # hide


# ---------------------------------------------------------------------- the program
def _reads(node: object) -> set[str]:
    """The free names a node reads (names bound inside it aside)."""
    out: set[str] = set()

    def walk(n: object, bound: frozenset[str]) -> None:
        if isinstance(n, A.Name):
            if n.id not in bound:
                out.add(n.id)
        elif isinstance(n, (A.Quant, A.Replicated, A.AssignLoop, A.Let)):
            walk(getattr(n, "domain", None), bound)
            walk(getattr(n, "value", None), bound)
            walk(
                getattr(n, "sync", ()),
                bound | ({n.var} if isinstance(n, A.Replicated) and n.op == "||" else frozenset()),
            )
            walk(n.body, bound | {n.var})
        elif isinstance(n, A.Prefix):
            inner = bound
            for f in n.event.fields if n.event else ():
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
            for name in n.__slots__:
                if name not in ("span", "name_span", "name_spans"):
                    walk(getattr(n, name), bound)

    walk(node, frozenset())
    return out


def _walk_nodes(node: object):
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif hasattr(n, "__slots__"):
            yield n
            stack.extend(
                getattr(n, s) for s in n.__slots__ if s not in ("span", "name_span", "name_spans")
            )
