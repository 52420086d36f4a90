"""Process terms at run time: closures of AST nodes over bound values, interned to ints.

A term is a tuple; its children are term ids. Forms (docs/semantics.md):
  ("omega",)                         terminated
  ("stop",) ("skip",)
  ("pre", node, env)                 a prefix `a -> P` (or `{x := e} -> P`), `assert(b) -> P`
                                     or `atomic { } -> P` over env
  ("ichoice", (t1, ..., tn))         `P |~| Q` and `|~| x: T @ P`
  ("ext", t1, t2)                    `P [] Q`
  ("sel", (t1, ..., tn), t | None)   `if :: P1 :: ... :: else -> Q fi`
  ("seq", t1, node, env)             `P ; Q` with Q not yet started
  ("slide", t1, node, env)           `P [> Q` with Q not yet started
  ("intr", t1, t2)                   `P /\\ Q`
  ("par", sync, (t1, ..., tn))       parallel over a set of events (n-ary for replicated forms)
  ("apar", (A1, ..., An), (t1, ..., tn))   alphabetised parallel: part i has alphabet Ai
  ("hide", set, t)                   `P \\ X`
  ("rename", pairs, t)               `P [[a <- b]]`: pairs of (source prefix, target prefix)
  ("guard", node, env, t)            `b & P` with b reading the state (env: b's bound values)
  ("err", site, detail)              a call that failed: an argument or a variable's initial
                                     value outside its type, or an argument that cannot be
                                     computed; a state holding it (outside an `if` or guard
                                     that is false) is that model error
  ("if", node, env, t1, t2)          `if b then P else Q` with b reading the state
A set of events is a frozenset of *prefixes* `(channel, v1, ..., vk)`: an event is in the
set when one of them starts it. Two forms exist only while the compiled network
(fito/semantics/network.py) computes the transitions of a few components of a configuration:
  ("hole", p)                        component p of the configuration, standing still
  ("mark", p, t, base)               component p, whose current term is t and whose
                                     variables start at state slot `base`
A closure's env holds the (name, value) pairs of the bound names its node reads, so two
terms are the same exactly when they are the same node over the same values. Inside a
definition with variables it also holds, under `ACT`, the *activation marker*
(definition, initial values, tag): the variables' values are not in the term but in the
component's region of the state (docs/semantics.md); the tag is None in a state, and
records where an activation comes from while a transition's target is made (`retag`).
Process calls are unfolded when a term is made; guards and conditions that do not read
the state are decided then. Arguments that read the state are evaluated in the state where
the call is made (the state after the transition that reaches it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fito.lang import nodes as A
from fito.lang.resolve.loops import loop_calls, recurrent_operands, start_nodes
from fito.lang.resolve.model import Model
from fito.semantics.ir import (
    ACT,
    IR,
    ExprCompiler,
    Fault,
    domain_values,
    evaluate,
    reads_cells,
    relocate,
)
from fito.semantics.terms.program import names_read

OMEGA: tuple = ("omega",)
STOP: tuple = ("stop",)
SKIP: tuple = ("skip",)
_STEPS = (A.Prefix, A.AssertStep, A.Atomic)

Env = tuple  # values of a node's free bound names, in sorted name order
Event = tuple  # (channel, v1, ..., vn), or a prefix of one


class NeedsState(Exception):
    """A process call with arguments that read the state was made without a state."""


@dataclass(slots=True)
class Terms:
    """Interning table and term construction for one model."""

    model: Model
    compiler: ExprCompiler
    ids: dict[tuple, int] = field(default_factory=dict)
    table: list[tuple] = field(default_factory=list)
    _free: dict[int, frozenset[str]] = field(default_factory=dict)
    _reads: dict[int, frozenset[str]] = field(default_factory=dict)  # names_read's memo
    _nodes: dict[int, object] = field(default_factory=dict)
    _kinds: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    _par: dict[int, bool] = field(default_factory=dict)
    _calls: dict[tuple, tuple] = field(default_factory=dict)
    _markers: dict[int, frozenset] = field(default_factory=dict)
    _mapped: dict[tuple, int] = field(default_factory=dict)
    loops: set[int] = field(default_factory=set)  # ids of calls that keep their activation
    recurrent: set[int] = field(default_factory=set)  # ids of operands that return to it
    ends: set[int] = field(default_factory=set)  # ids of the start nodes of `end` processes
    _at_end: dict[int, bool] = field(default_factory=dict)
    fresh: int = 0  # activations made by the current `make`
    polls: int = 0  # calls of `poll`: the clock is read on every 256th

    def poll(self) -> None:
        """The assertion's deadline (TimeLimit) and the command's budget, every 256 calls:
        in the loops whose length the spec sets (replicated operators, chains of choices)."""
        self.polls += 1
        if not self.polls & 255:
            self.compiler.check_bounds()

    def __post_init__(self) -> None:
        constants = set(self.model.consts) | set(self.model.members)
        for decl in self.model.processes.values():
            self.loops.update(id(c) for c in loop_calls(decl))
            self.recurrent.update(id(n) for n in recurrent_operands(decl, constants))
            if decl.name in self.model.end_processes:
                self.ends.update(id(n) for n in start_nodes(decl, constants))

    def intern(self, t: tuple) -> int:
        got = self.ids.get(t)
        if got is None:
            got = len(self.table)
            self.ids[t] = got
            self.table.append(t)
        return got

    def has_par(self, tid: int) -> bool:
        """Whether a parallel operator is active in the term (a continuation not yet started
        does not count): such a term is split into a configuration of components."""
        got = self._par.get(tid)
        if got is None:
            got = any(self.has_par(c) for c in children(self.table[tid])) or self.table[tid][0] in (
                "par",
                "apar",
            )
            self._par[tid] = got
        return got

    def node(self, key: int) -> object:
        return self._nodes[key]

    def key(self, node: object) -> int:
        k = id(node)
        self._nodes.setdefault(k, node)
        return k

    # ------------------------------------------------------------------ environments
    def free_names(self, node: object) -> frozenset[str]:
        """Names a node reads without binding them itself (bound or global), and ACT."""
        k = self.key(node)
        got = self._free.get(k)
        if got is None:
            got = names_read(node, self._reads) | {ACT}
            self._free[k] = got
        return got

    def env_of(self, node: object, env: Mapping[str, object]) -> Env:
        """The bound values a node depends on: (name, value) pairs, sorted by name."""
        free = self.free_names(node)
        return tuple(sorted((n, v) for n, v in env.items() if n in free))

    @staticmethod
    def bind(node: object, values: Env) -> dict[str, object]:
        return dict(values)

    # ------------------------------------------------------------------ sets of events
    def events_of(self, s: A.EventSet | None, env: Mapping[str, object]) -> frozenset[Event]:
        """A set of events as the prefixes it lists (`Events`: every synchronous channel);
        an item that extends another is dropped."""
        if s is None:
            return frozenset()
        if s.kind == "all":
            items = {(name,) for name, c in self.model.channels.items() if not c.buffered}
        else:
            items = {self.prefix(item, env) for item in s.items}
        return frozenset(p for p in items if not any(p[:k] in items for k in range(1, len(p))))

    def prefix(self, item: A.Event, env: Mapping[str, object]) -> Event:
        values = []
        for f in item.fields:
            ir = self.compiler.compile(f.value, env)  # type: ignore[union-attr]
            assert ir[0] == "k", "the resolver keeps the state out of sets of events (T006)"
            values.append(ir[1])
        return (item.channel, *values)

    # ------------------------------------------------------------------ making terms
    def make(
        self, p: A.Proc, env: Mapping[str, object], state: Sequence[int] | None, base: int = 0
    ) -> int:
        """The term id of process p under env (state is needed only for calls reading the
        state; base: where the variables in scope start in it). Raises Fault when a call's
        argument or a variable's initial value is outside its type."""
        self.fresh = 0
        return self.intern(self._make(p, env, state, 0, base))

    def _make(
        self,
        p: A.Proc,
        env: Mapping[str, object],
        state: Sequence[int] | None,
        depth: int,
        base: int = 0,
    ) -> tuple:
        if depth > 10_000:
            raise RecursionError("unguarded recursion")
        if isinstance(p, A.Stop):
            return STOP
        if isinstance(p, A.Skip):
            return SKIP
        if isinstance(p, _STEPS):
            return ("pre", self.key(p), self.env_of(p, env))
        if isinstance(p, A.ProcRef):
            return self._call(p, env, state, depth, base)
        if isinstance(p, (A.Guard, A.ProcIf)):
            return self._conditional(p, env, state, depth, base)
        if isinstance(p, A.ProcBinary):
            return self._binary(p, env, state, depth, base)
        sub = lambda q: self.intern(self._make(q, env, state, depth + 1, base))  # noqa: E731
        if isinstance(p, A.Select):
            orelse = None if p.orelse is None else sub(p.orelse)
            return ("sel", tuple(sub(b) for b in p.branches), orelse)
        if isinstance(p, A.Parallel):
            return ("par", self.events_of(p.sync, env), (sub(p.left), sub(p.right)))
        if isinstance(p, A.AlphaParallel):
            alphas = (self.events_of(p.left_alpha, env), self.events_of(p.right_alpha, env))
            return ("apar", alphas, (sub(p.left), sub(p.right)))
        if isinstance(p, A.Hide):
            return ("hide", self.events_of(p.chans, env), sub(p.proc))
        if isinstance(p, A.Rename):
            pairs = frozenset(
                (self.prefix(x.source, env), self.prefix(x.target, env)) for x in p.pairs
            )
            return ("rename", pairs, sub(p.proc))
        assert isinstance(p, A.Replicated)
        return self._replicated(p, env, state, depth, base)

    def _call(
        self,
        p: A.ProcRef,
        env: Mapping[str, object],
        state: Sequence[int] | None,
        depth: int,
        base: int,
    ) -> tuple:
        """A call unfolded. In a spec without process variables, a call made without the
        cells is the same term wherever it is made: it is made once per arguments (a
        replicated choice over n values is then built once, not at each of its n steps)."""
        try:
            body, inner = self._unfold(p, env, state, base)
        except Fault as f:  # the state this term is part of is a model error
            return ("err", f.site, f.detail)
        if state is not None or self.compiler.layout.frames:
            return self._make(body, inner, state, depth + 1, base)
        key = (p.name, tuple(inner.items()), base)
        got = self._calls.get(key)
        if got is None:
            got = self._calls[key] = self._make(body, inner, state, depth + 1, base)
        return got

    def _unfold(
        self, p: A.ProcRef, env: Mapping[str, object], state: Sequence[int] | None, base: int
    ) -> tuple[A.Proc, dict[str, object]]:
        """The body of a call and its environment (see `enter`)."""
        values = [self._arg(a, env, state, base) for a in p.args]
        return self.enter(p, values, env)

    def enter(
        self, p: A.ProcRef, values: Sequence[int], env: Mapping[str, object]
    ) -> tuple[A.Proc, dict[str, object]]:
        """The body of a call with these argument values, and its environment: the arguments
        (each checked against its parameter's type: M001 outside it) and the activation,
        the caller's for a loop, else a new one."""
        decl = self.model.processes[p.name]
        types = self.model.param_types.get(p.name, ())
        inner: dict[str, object] = {}
        for q, a, t, v in zip(decl.params, p.args, types, values):
            if not t.contains(v):
                err = self.compiler.sites.add(
                    "M001",
                    f"argument outside the type of parameter '{q.name}' of '{p.name}'",
                    a.span,
                )
                raise Fault(err, str(v))
            inner[q.name] = v
        frame = self.compiler.layout.frames.get(p.name)
        if frame is None:
            return decl.body, inner
        if id(p) in self.loops and ACT in env:
            inner[ACT] = env[ACT]
        else:
            inner[ACT] = (p.name, self._initial(p, frame, inner), ("new", self.fresh))
            self.fresh += 1
        return decl.body, inner

    def _initial(
        self, p: A.ProcRef, frame: object, params: Mapping[str, object]
    ) -> tuple[int, ...]:
        """Initial values of a new activation (they read constants, parameters, indices)."""
        vals: list[int] = []
        for v in frame.variables:  # type: ignore[attr-defined]
            for idx in itertools.product(*(t.values() for t in v.indices)):
                ir = self.compiler.compile(v.init, {**params, **dict(zip(v.index_names, idx))})
                value = evaluate(ir, ())  # an initial value reads no state (T006)
                if not v.type.contains(value):
                    err = self.compiler.sites.add(
                        "M001",
                        f"initial value outside the type of '{v.name}' of '{p.name}'",
                        v.init.span,
                    )
                    raise Fault(err, str(value))
                vals.append(value)
        return tuple(vals)

    def _conditional(
        self,
        p: A.Guard | A.ProcIf,
        env: Mapping[str, object],
        state: Sequence[int] | None,
        depth: int,
        base: int,
    ) -> tuple:
        cond = self.compiler.compile(p.cond, env)
        decided = cond[0] == "k"
        if isinstance(p, A.Guard):
            if decided:
                return self._make(p.body, env, state, depth + 1, base) if cond[1] else STOP
            return (
                "guard",
                self.key(p),
                self.env_of(p.cond, env),
                self.intern(self._make(p.body, env, state, depth + 1, base)),
            )
        if decided:
            return self._make(p.then if cond[1] else p.orelse, env, state, depth + 1, base)
        return (
            "if",
            self.key(p),
            self.env_of(p.cond, env),
            self.intern(self._make(p.then, env, state, depth + 1, base)),
            self.intern(self._make(p.orelse, env, state, depth + 1, base)),
        )

    def _binary(
        self,
        p: A.ProcBinary,
        env: Mapping[str, object],
        state: Sequence[int] | None,
        depth: int,
        base: int,
    ) -> tuple:
        if p.op in (";", "[>"):
            left = self.intern(self._make(p.left, env, state, depth + 1, base))
            return (
                "seq" if p.op == ";" else "slide",
                left,
                self.key(p.right),
                self.env_of(p.right, env),
            )
        if p.op == "[]":  # a chain `P1 [] P2 [] ... [] Pn`: one pass, not n nested ones
            parts = []
            for operand in _choice_operands(p):
                self.poll()
                parts.append(self.intern(self._make(operand, env, state, depth + 1, base)))
            return self.ext_all(parts)
        left = self.intern(self._make(p.left, env, state, depth + 1, base))
        right = self.intern(self._make(p.right, env, state, depth + 1, base))
        if p.op == "|~|":
            return ("ichoice", (left, right))
        if p.op == "/\\":
            return ("intr", left, right)
        assert p.op == "|||"
        return ("par", frozenset(), (left, right))

    def _replicated(
        self,
        p: A.Replicated,
        env: Mapping[str, object],
        state: Sequence[int] | None,
        depth: int,
        base: int,
    ) -> tuple:
        values = domain_values(self.model, p.domain)
        envs = [{**env, p.var: v} for v in values]
        # The body is made once per distinct environment it reads: `[] v: T @ Q` where Q
        # does not read v is one term, so nesting ten of them costs 10 x 10 makes, not
        # 10^10. Not with process variables, whose every activation is a term of its own.
        made: dict[Env, int] | None = None if self.compiler.layout.frames else {}
        parts = []
        for e in envs:
            self.poll()
            key = self.env_of(p.body, e) if made is not None else None
            got = made.get(key) if made is not None and key is not None else None
            if got is None:
                got = self.intern(self._make(p.body, e, state, depth + 1, base))
                if made is not None and key is not None:
                    made[key] = got
            parts.append(got)
        if p.op == "||":
            return ("apar", tuple(self.events_of(p.sync, e) for e in envs), tuple(parts))
        if p.op in ("|||", "[||]"):
            sync = self.events_of(p.sync, env) if p.op == "[||]" else frozenset()
            return ("par", sync, tuple(parts))
        if p.op == "[]":
            return self.ext_all(parts)
        assert p.op == "|~|"
        return ("ichoice", tuple(parts))

    # ------------------------------------------------------------------ external choice
    def ext(self, left: int, right: int) -> tuple:
        """`P [] Q` in normal form (docs/semantics.md, structural congruence).

        Four laws that hold up to strong bisimulation, so no verdict, trace or count of
        distinct behaviours changes: STOP is a unit; [] is associative (operands are
        flattened, in order, into a left-nested chain); a repeated operand whose every
        initial step is visible (stable) is dropped, since P [] P and P then have the same
        steps to the same targets; and so is a repeated operand that returns to its choice
        (`returns`: each of its τs leads to a chain that offers it again, so the second copy
        is never missed). Without them a recursion through a choice with an internal step
        (`P = a -> P [] {x := 1} -> P`, or two guarded assignments) makes a new, longer
        term at every step, and the state space of a finite model never closes."""
        return self.ext_all((left, right))

    def ext_all(self, parts: Sequence[int]) -> tuple:
        """`P1 [] ... [] Pn` in the normal form of `ext`, in time linear in the operands (a
        replicated choice over a large range is one pass, not n chains rebuilt)."""
        table = self.table
        kept: list[int] = []
        seen: set[int] = set()
        check = self.poll  # nested choices flatten: n^k operands for k levels
        for part in parts:
            if table[part] == STOP:
                continue
            for o in self.operands(part):
                check()
                if o in seen and (self.stable(o) or self.returns(o)):
                    continue
                seen.add(o)
                kept.append(o)
        if not kept:
            return STOP
        acc = table[kept[0]]
        for o in kept[1:]:
            check()
            acc = ("ext", self.intern(acc), o)
        return acc

    def at_end(self, tid: int) -> bool:
        """Whether the term waits at a valid end location: it is made of the start of `end`
        processes only (a choice or `if :: … fi` of them, under hiding, renaming, a
        component's mark), or is a parallel composition whose parts are Ω or at an end."""
        got = self._at_end.get(tid)
        if got is None:
            t = self.table[tid]
            tag = t[0]
            if tag in ("pre", "guard"):
                got = t[1] in self.ends
            elif tag == "ext":
                got = all(self.at_end(o) for o in self.operands(tid))
            elif tag in ("sel", "par", "apar"):
                parts = t[1] + ((t[2],) if t[2] is not None else ()) if tag == "sel" else t[2]
                got = all(self.table[p] == OMEGA or self.at_end(p) for p in parts)
            elif tag in ("mark", "hide", "rename"):
                got = self.at_end(t[2])
            else:
                got = False
            self._at_end[tid] = got
        return got

    def returns(self, tid: int) -> bool:
        """Whether the term is an operand that returns to its choice: by its form, every
        initial step is a τ to a chain that offers the term again (`recurrent_operands`)."""
        t = self.table[tid]
        return t[0] in ("pre", "guard") and t[1] in self.recurrent

    def operands(self, tid: int) -> list[int]:
        """The operands of a chain of external choices, left to right (not themselves `[]`)."""
        out: list[int] = []
        t = self.table[tid]
        while t[0] == "ext":
            out.append(t[2])
            tid = t[1]
            t = self.table[tid]
        out.append(tid)
        out.reverse()
        return out

    def stable(self, tid: int) -> bool:
        """Whether every initial step of the term is visible (an event or tick), by its form."""
        return self.initial_kinds(tid)[0]

    def initial_kinds(self, tid: int) -> tuple[bool, bool]:
        """(no initial tau, no initial tick), decided from the term's form (conservatively)."""
        got = self._kinds.get(tid)
        if got is None:
            got = self._kinds_of(tid)
            self._kinds[tid] = got
        return got

    def _kinds_of(self, tid: int) -> tuple[bool, bool]:
        t = self.table[tid]
        tag = t[0]
        if tag in ("stop", "omega", "hole", "err"):
            return True, True
        if tag == "skip":
            return True, False
        if tag == "pre":
            node = self.node(t[1])
            visible = (
                isinstance(node, A.Prefix)
                and node.event is not None
                and not self.model.channels[node.event.channel].buffered
            )
            return visible, True
        if tag == "ichoice":
            return False, True
        if tag in ("guard", "mark", "rename"):
            return self.initial_kinds(t[-1] if tag != "mark" else t[2])
        if tag in ("if", "intr", "ext", "sel"):
            parts = [
                self.initial_kinds(o)
                for o in (
                    self.operands(tid)
                    if tag == "ext"
                    else t[1] + ((t[2],) if t[2] is not None else ())
                    if tag == "sel"
                    else t[-2:]
                )
            ]
            return all(k[0] for k in parts), all(k[1] for k in parts)
        if tag == "seq":  # a tick of the first part is a tau of the sequence
            first = self.initial_kinds(t[1])
            return first[0] and first[1], True
        if tag in ("par", "apar"):  # a part's tick is a tau; the whole ticks once all are Ω
            parts = [self.initial_kinds(p) for p in t[2]]
            return all(k[0] and k[1] for k in parts), not all(self.table[p] == OMEGA for p in t[2])
        if tag == "slide":
            return False, self.initial_kinds(t[1])[1]
        # hide: a hidden event is a tau, and which events are hidden is not decided here
        return False, self.initial_kinds(t[2])[1]

    def _arg(
        self, a: A.Expr, env: Mapping[str, object], state: Sequence[int] | None, base: int
    ) -> int:
        ir = self.compiler.compile(a, env)
        if ir[0] == "k":
            return ir[1]
        if not reads_cells(ir):
            return evaluate(ir, ())
        if state is None:
            raise NeedsState()
        return evaluate(relocate(ir, base, self.compiler.layout), state, self.compiler.layout)

    # ------------------------------------------------------------------ activation markers
    def markers(self, tid: int) -> frozenset:
        """The activation markers the term refers to."""
        got = self._markers.get(tid)
        if got is None:
            t = self.table[tid]
            env = _env(t)
            own = frozenset(v for n, v in env if n == ACT) if env else frozenset()
            got = own.union(*(self.markers(c) for c in children(t)))
            self._markers[tid] = got
        return got

    def map_markers(self, tid: int, mapping: Mapping[tuple, tuple]) -> int:
        """The term with its activation markers renamed by mapping (others kept)."""
        mine = self.markers(tid)
        if not mine or mine.isdisjoint(mapping):
            return tid
        key = (tid, tuple(sorted(mapping.items(), key=repr)))
        got = self._mapped.get(key)
        if got is None:
            got = self.intern(
                _rebuild(self.table[tid], lambda c: self.map_markers(c, mapping), mapping)
            )
            self._mapped[key] = got
        return got

    def retag(self, tid: int, p: int) -> int:
        """A target made at position p: its markers say so (None -> ("old", p); a new
        activation ("new", k) -> ("new", k, p)), so the network can tell where each
        activation comes from."""
        mapping = {
            m: (m[0], m[1], ("old", p) if m[2] is None else m[2] + (p,))
            for m in self.markers(tid)
            if m[2] is None or m[2] == ("new", m[2][1])
        }
        return self.map_markers(tid, mapping) if mapping else tid


def children(t: tuple) -> tuple[int, ...]:
    """The term ids a term holds."""
    tag = t[0]
    if tag in ("ext", "intr"):
        return t[1:3]
    if tag in ("ichoice",):
        return t[1]
    if tag in ("par", "apar"):
        return t[2]
    if tag in ("hide", "rename"):
        return (t[2],)
    if tag == "sel":
        return t[1] + ((t[2],) if t[2] is not None else ())
    if tag in ("seq", "slide"):
        return (t[1],)
    if tag == "guard":
        return (t[3],)
    if tag == "if":
        return t[3:5]
    if tag == "mark":
        return (t[2],)
    return ()


def _env(t: tuple) -> Env | None:
    tag = t[0]
    if tag in ("seq", "slide"):
        return t[3]
    return t[2] if tag in ("pre", "guard", "if") else None


def _rebuild(t: tuple, sub: Callable[[int], int], mapping: Mapping[tuple, tuple]) -> tuple:
    """t with its children mapped by sub and its env's marker by mapping."""

    def env(e: Env) -> Env:
        return tuple((n, mapping.get(v, v)) if n == ACT else (n, v) for n, v in e)

    tag = t[0]
    if tag == "pre":
        return ("pre", t[1], env(t[2]))
    if tag in ("seq", "slide"):
        return (tag, sub(t[1]), t[2], env(t[3]))
    if tag == "guard":
        return ("guard", t[1], env(t[2]), sub(t[3]))
    if tag == "if":
        return ("if", t[1], env(t[2]), sub(t[3]), sub(t[4]))
    if tag in ("ext", "intr"):
        return (tag, sub(t[1]), sub(t[2]))
    if tag == "ichoice":
        return ("ichoice", tuple(sub(c) for c in t[1]))
    if tag in ("par", "apar"):
        return (tag, t[1], tuple(sub(c) for c in t[2]))
    if tag in ("hide", "rename"):
        return (tag, t[1], sub(t[2]))
    if tag == "sel":
        return ("sel", tuple(sub(c) for c in t[1]), None if t[2] is None else sub(t[2]))
    if tag == "mark":
        return ("mark", t[1], sub(t[2]), t[3])
    return t


__all__ = ["IR", "OMEGA", "SKIP", "STOP", "Terms", "reads_cells"]


def _choice_operands(p: A.ProcBinary) -> list[A.Proc]:
    """The operands of a left-nested chain of `[]` (as the parser builds it), in order."""
    out: list[A.Proc] = []
    q: A.Proc = p
    while isinstance(q, A.ProcBinary) and q.op == "[]":
        out.append(q.right)
        q = q.left
    out.append(q)
    out.reverse()
    return out
