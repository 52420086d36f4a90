"""Process terms at run time: closures of AST nodes over bound values, interned to ints.

A term is a tuple; its children are term ids. Forms (docs/semantics.md):
  ("omega",)                         terminated
  ("stop",) ("skip",)
  ("pre", node, env)                 a prefix `a -> P` (or `{x := e} -> P`) over env
  ("ichoice", (t1, ..., tn))         `P |~| Q` and `|~| x: T @ P`
  ("ext", t1, t2)                    `P [] Q`
  ("seq", t1, node, env)             `P ; Q` with Q not yet started
  ("intr", t1, t2)                   `P /\\ Q`
  ("par", sync, (t1, ..., tn))       parallel over the channel set sync (n-ary for replicated forms)
  ("hide", chans, t)                 `P \\ X`
  ("guard", node, env, t)            `b & P` with b reading cells (env: b's bound values)
  ("if", node, env, t1, t2)          `if b then P else Q` with b reading cells
  ("error", site, detail)            a call with an argument out of range: faults at once
Two forms exist only while the compiled network (fito/semantics/network.py) computes the
transitions of a few components of a configuration at a time:
  ("hole", p)                        component p of the configuration, standing still
  ("mark", p, t)                     component p, whose current term is t
A closure's env holds the (name, value) pairs of the bound names its node reads, so two
terms are the same exactly when they are the same node over the same values.
Process calls are unfolded when a term is made; guards and conditions that do not read
cells are decided then. Arguments that read cells are evaluated in the state where the call
is made (the state after the transition that reaches it).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fito.lang import nodes as A
from fito.lang.resolve import Model
from fito.semantics.ir import IR, ExprCompiler, domain_values, evaluate, reads_cells

OMEGA: tuple = ("omega",)
STOP: tuple = ("stop",)
SKIP: tuple = ("skip",)

Env = tuple  # values of a node's free bound names, in sorted name order


class NeedsState(Exception):
    """A process call with arguments that read cells was made without a state."""


@dataclass(slots=True)
class Terms:
    """Interning table and term construction for one model."""

    model: Model
    compiler: ExprCompiler
    ids: dict[tuple, int] = field(default_factory=dict)
    table: list[tuple] = field(default_factory=list)
    _free: dict[int, frozenset[str]] = field(default_factory=dict)
    _nodes: dict[int, object] = field(default_factory=dict)
    _kinds: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    _par: dict[int, bool] = field(default_factory=dict)
    _calls: dict[tuple, tuple] = field(default_factory=dict)
    _reads: dict[int, frozenset[str]] = field(default_factory=dict)

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
            t = self.table[tid]
            tag = t[0]
            if tag == "par":
                got = True
            elif tag in ("ext", "intr"):
                got = self.has_par(t[1]) or self.has_par(t[2])
            elif tag == "ichoice":
                got = any(self.has_par(x) for x in t[1])
            elif tag in ("seq", "hide"):
                got = self.has_par(t[1] if tag == "seq" else t[2])
            elif tag == "guard":
                got = self.has_par(t[3])
            elif tag == "if":
                got = self.has_par(t[3]) or self.has_par(t[4])
            elif tag == "mark":
                got = self.has_par(t[2])
            else:
                got = False
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
        """Names a node reads without binding them itself (bound or global)."""
        k = self.key(node)
        got = self._free.get(k)
        if got is None:
            got = names_read(node, self._reads)
            self._free[k] = got
        return got

    def env_of(self, node: object, env: Mapping[str, int]) -> Env:
        """The bound values a node depends on: (name, value) pairs, sorted by name."""
        free = self.free_names(node)
        return tuple(sorted((n, v) for n, v in env.items() if n in free))

    @staticmethod
    def bind(node: object, values: Env) -> dict[str, int]:
        return dict(values)

    # ------------------------------------------------------------------ making terms
    def make(self, p: A.Proc, env: Mapping[str, int], state: Sequence[int] | None) -> int:
        """The term id of process p under env (state is needed only for calls reading cells)."""
        return self.intern(self._make(p, env, state, 0))

    def _make(self, p: A.Proc, env: Mapping[str, int], state: Sequence[int] | None,
              depth: int) -> tuple:
        if depth > 10_000:
            raise RecursionError("unguarded recursion")
        if isinstance(p, A.Stop):
            return STOP
        if isinstance(p, A.Skip):
            return SKIP
        if isinstance(p, A.Prefix):
            return ("pre", self.key(p), self.env_of(p, env))
        if isinstance(p, A.ProcRef):
            return self._call(p, env, state, depth)
        if isinstance(p, A.Guard):
            cond = self.compiler.compile(p.cond, env)
            if cond[0] == "k":
                return self._make(p.body, env, state, depth + 1) if cond[1] else STOP
            return ("guard", self.key(p), self.env_of(p.cond, env),
                    self.intern(self._make(p.body, env, state, depth + 1)))
        if isinstance(p, A.ProcIf):
            cond = self.compiler.compile(p.cond, env)
            if cond[0] == "k":
                return self._make(p.then if cond[1] else p.orelse, env, state, depth + 1)
            return ("if", self.key(p), self.env_of(p.cond, env),
                    self.intern(self._make(p.then, env, state, depth + 1)),
                    self.intern(self._make(p.orelse, env, state, depth + 1)))
        if isinstance(p, A.ProcBinary):
            return self._binary(p, env, state, depth)
        if isinstance(p, A.Parallel):
            sync = frozenset(p.sync.channel_names())
            parts = (self.intern(self._make(p.left, env, state, depth + 1)),
                     self.intern(self._make(p.right, env, state, depth + 1)))
            return ("par", sync, parts)
        if isinstance(p, A.Hide):
            chans = frozenset(p.chans.channel_names())
            return ("hide", chans, self.intern(self._make(p.proc, env, state, depth + 1)))
        assert isinstance(p, A.Replicated)
        return self._replicated(p, env, state, depth)

    def _call(self, p: A.ProcRef, env: Mapping[str, int], state: Sequence[int] | None,
              depth: int) -> tuple:
        """A call unfolded; made once per (process, arguments) where the body does not read
        the cells (a replicated choice over n values is then built once, not at each of its
        n steps' targets)."""
        decl = self.model.processes[p.name]
        args = [self._arg(a, env, state) for a in p.args]
        key = (p.name, tuple(args))
        got = self._calls.get(key) or self.check_arguments(p, args)
        if got is None:
            inner = {param.name: v for param, v in zip(decl.params, args)}
            got = self._make(decl.body, inner, state, depth + 1)
            if state is None:  # made without the cells: the same in every state
                self._calls[key] = got
        return got

    def _binary(self, p: A.ProcBinary, env: Mapping[str, int], state: Sequence[int] | None,
                depth: int) -> tuple:
        if p.op == ";":
            return ("seq", self.intern(self._make(p.left, env, state, depth + 1)), self.key(p.right),
                    self.env_of(p.right, env))
        left = self.intern(self._make(p.left, env, state, depth + 1))
        right = self.intern(self._make(p.right, env, state, depth + 1))
        if p.op == "[]":
            return self.ext(left, right)
        if p.op == "|~|":
            return ("ichoice", (left, right))
        if p.op == "/\\":
            return ("intr", left, right)
        assert p.op == "|||"
        return ("par", frozenset(), (left, right))

    def _replicated(self, p: A.Replicated, env: Mapping[str, int], state: Sequence[int] | None,
                    depth: int) -> tuple:
        values = domain_values(self.model, p.domain)
        parts = []
        for v in values:
            inner = dict(env)
            inner[p.var] = v
            parts.append(self.intern(self._make(p.body, inner, state, depth + 1)))
        if p.op in ("|||", "[||]"):
            sync = frozenset(p.sync.channel_names()) if p.op == "[||]" and p.sync else frozenset()
            return ("par", sync, tuple(parts))
        if p.op == "[]":
            return self.ext_all(parts)
        assert p.op == "|~|"
        return ("ichoice", tuple(parts))

    # ------------------------------------------------------------------ external choice
    def ext(self, left: int, right: int) -> tuple:
        """`P [] Q` in normal form (docs/semantics.md, structural congruence).

        Three laws that hold up to strong bisimulation, so no verdict, trace or count of
        distinct behaviours changes: STOP is a unit; [] is associative (operands are
        flattened, in order, into a left-nested chain); and a repeated operand whose every
        initial step is visible (stable) is dropped, since P [] P and P then have the same
        steps to the same targets. Without them a recursion through a choice with an
        internal step (`P = a -> P [] {x := 1} -> P`) makes a new, longer term at every
        step, and the state space of a finite model never closes."""
        return self.ext_all((left, right))

    def ext_all(self, parts: Sequence[int]) -> tuple:
        """`P1 [] ... [] Pn` in the normal form of `ext`, in time linear in the operands (a
        replicated choice over a large range is one pass, not n chains rebuilt)."""
        table = self.table
        kept: list[int] = []
        seen: set[int] = set()
        for part in parts:
            if table[part] == STOP:
                continue
            for o in self.operands(part):
                if o in seen and self.stable(o):
                    continue
                seen.add(o)
                kept.append(o)
        if not kept:
            return STOP
        acc = table[kept[0]]
        for o in kept[1:]:
            acc = ("ext", self.intern(acc), o)
        return acc

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
            t = self.table[tid]
            tag = t[0]
            if tag in ("stop", "omega", "hole"):
                got = (True, True)
            elif tag == "mark":
                got = self.initial_kinds(t[2])
            elif tag == "skip":
                got = (True, False)
            elif tag == "pre":
                got = (self.node(t[1]).event is not None, True)  # type: ignore[attr-defined]
            elif tag in ("ichoice", "error"):
                got = (False, True)
            elif tag == "guard":
                got = self.initial_kinds(t[3])
            elif tag in ("if", "intr"):
                a, b = self.initial_kinds(t[-2]), self.initial_kinds(t[-1])
                got = (a[0] and b[0], a[1] and b[1])
            elif tag == "ext":
                kinds = [self.initial_kinds(o) for o in self.operands(tid)]
                got = (all(k[0] for k in kinds), all(k[1] for k in kinds))
            elif tag == "seq":  # a tick of the first part is a tau of the sequence
                first = self.initial_kinds(t[1])
                got = (first[0] and first[1], True)
            elif tag == "par":  # a part's tick is a tau; the whole ticks once all are Ω
                parts = [self.initial_kinds(p) for p in t[2]]
                got = (all(k[0] and k[1] for k in parts), not all(self.table[p] == OMEGA for p in t[2]))
            else:  # hide: a hidden event is a tau, and which events are hidden is not decided here
                got = (False, self.initial_kinds(t[2])[1])
            self._kinds[tid] = got
        return got

    def _arg(self, a: A.Expr, env: Mapping[str, int], state: Sequence[int] | None) -> int:
        ir = self.compiler.compile(a, env)
        if ir[0] == "k":
            return ir[1]
        if state is None:
            raise NeedsState()
        return evaluate(ir, state, self.compiler.layout)

    def check_arguments(self, call: A.ProcRef, args: Sequence[int]) -> tuple | None:
        """The term of a call with an argument outside its parameter's declared type: an
        `error` term, whose one step faults (M001) as soon as the call is reached (a branch
        not taken, as in `if e < N then P(e + 1) else ...`, never faults)."""
        types = self.model.param_types.get(call.name, ())
        for a, v, t in zip(call.args, args, types):
            if not t.contains(v):
                site = self.compiler.sites.add(
                    "M001", f"argument outside the declared type of '{call.name}'", a.span)
                return ("error", site, f"{v} given")
        return None

    def needs_state(self, p: A.Proc, env: Mapping[str, int]) -> bool:
        """Whether making p under env reads cells (a call with cell-reading arguments)."""
        try:
            self._make(p, env, None, 0)
        except NeedsState:
            return True
        return False


# ---------------------------------------------------------------------- names read by a node
_NOTHING: frozenset[str] = frozenset()


def names_read(node: object, memo: dict[int, frozenset[str]] | None = None) -> frozenset[str]:
    """Every name a node reads and does not bind itself (binders, inputs). Composed from its
    children's names, each node once with a shared `memo` (by node id): the free names of
    every suffix of a prefix chain cost linear time, not quadratic."""
    memo = {} if memo is None else memo
    got = memo.get(id(node))
    if got is None:
        got = _read(node, memo)
        memo[id(node)] = got
    return got


def _read(n: object, memo: dict[int, frozenset[str]]) -> frozenset[str]:
    if isinstance(n, A.Name):
        return frozenset((n.id,))
    if isinstance(n, (A.Quant, A.Replicated)):
        inner = names_read(n.body, memo) - {n.var}
        return names_read(n.domain, memo) | names_read(getattr(n, "sync", None), memo) | inner
    if isinstance(n, A.Prefix):
        return _read_prefix(n, memo)
    if isinstance(n, A.ProcRef):
        return names_read(n.args, memo)
    if isinstance(n, tuple):
        return _NOTHING.union(*(names_read(x, memo) for x in n))
    out: set[str] = set()
    for name in getattr(n, "__slots__", ()):
        if name in ("span", "name_span", "name_spans"):
            continue
        child = getattr(n, name)
        if isinstance(child, tuple) or hasattr(child, "__slots__"):
            out |= names_read(child, memo)
    return frozenset(out)


def _read_prefix(n: A.Prefix, memo: dict[int, frozenset[str]]) -> frozenset[str]:
    """Input variables bind the later fields, the assignments and the body; a field's
    restriction reads only the names outside the prefix."""
    out: set[str] = set()
    bound: set[str] = set()
    if n.event is not None:
        for f in n.event.fields:
            if isinstance(f, A.InField):
                if f.restriction is not None:
                    out |= names_read(f.restriction, memo)
                bound.add(f.var)
            else:
                out |= names_read(f.value, memo) - bound
    for a in n.assigns:
        out |= (names_read(a.target, memo) | names_read(a.value, memo)) - bound
    out |= names_read(n.body, memo) - bound
    return frozenset(out)


@dataclass(frozen=True, slots=True, eq=False)
class Deferred:
    """A target that reads the cells after the step: a call whose arguments read cells.
    `wrap` rebuilds the enclosing term around the made term (innermost operator first)."""

    terms: Terms
    body: A.Proc
    env: Mapping[str, int]
    wrap: tuple[Callable[[int], tuple], ...] = ()

    def __call__(self, post: Sequence[int]) -> int:
        return self.around(self.terms.make(self.body, self.env, post))

    def around(self, tid: int) -> int:
        for build in self.wrap:
            tid = self.terms.intern(build(tid))
        return tid

    def wrapped(self, build: Callable[[int], tuple]) -> Deferred:
        return Deferred(self.terms, self.body, self.env, self.wrap + (build,))

    def arguments(self) -> tuple[IR, ...] | None:
        """The arguments' IRs when the target is one call whose arguments alone read cells."""
        if not isinstance(self.body, A.ProcRef):
            return None
        return tuple(self.terms.compiler.compile(a, self.env) for a in self.body.args)

    def with_arguments(self, values: Sequence[int]) -> int:
        """The target term for given argument values (NeedsState if more of it reads cells)."""
        assert isinstance(self.body, A.ProcRef)
        decl = self.terms.model.processes[self.body.name]
        bad = self.terms.check_arguments(self.body, values)
        if bad is not None:
            return self.around(self.terms.intern(bad))
        inner = {param.name: v for param, v in zip(decl.params, values)}
        return self.around(self.terms.intern(self.terms._make(decl.body, inner, None, 1)))


@dataclass(frozen=True, slots=True, eq=False)
class Joint:
    """The target of a synchronised step where several parts' targets read the cells."""

    terms: Terms
    build: Callable[[Sequence[int]], int]

    def __call__(self, post: Sequence[int]) -> int:
        return self.build(post)

    def wrapped(self, build: Callable[[int], tuple]) -> Joint:
        inner, intern = self.build, self.terms.intern
        return Joint(self.terms, lambda post: intern(build(inner(post))))

    def arguments(self) -> None:
        return None


__all__ = ["IR", "OMEGA", "SKIP", "STOP", "Deferred", "Joint", "Terms", "reads_cells"]
