"""The symbolic steps of a term: structural operational semantics with a store.

A step (fito/semantics/rules/step.py) is a transition *schema*: it fires in every state
where its guard holds, performs its checks and writes (reading the state before the step),
and leads to its target term. Steps are computed once per term and cached; the explorers
evaluate them on concrete states. Rules follow Roscoe's operational semantics of CSP,
extended with cells, buffers and process variables (docs/semantics.md). The steps of
prefixes, `assert`, `atomic` and buffered channels are made in
fito/semantics/rules/prefixes.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from fito.lang.resolve.model import Model
from fito.semantics.ir import IR, ExprCompiler, Sites, conjoin, fold, negate, relocate
from fito.semantics.rules.prefixes import Prefixes
from fito.semantics.rules.step import EVENT, TAU, TICK, Step, Write
from fito.semantics.state.layout import Layout
from fito.semantics.terms.closures import OMEGA, Terms
from fito.semantics.terms.deferred import Deferred, Joint


class Semantics:
    """Steps of terms, for one model."""

    def __init__(self, model: Model, layout: Layout, sites: Sites) -> None:
        self.model = model
        self.layout = layout
        self.sites = sites
        self.compiler = ExprCompiler(model, layout, sites)
        self.terms = Terms(model, self.compiler)
        self.omega = self.terms.intern(OMEGA)
        self.prefixes = Prefixes(self)
        self._steps: dict[int, tuple[Step, ...]] = {}

    # ------------------------------------------------------------------ entry points
    def initial(self, p: object) -> int:
        return self.terms.make(p, {}, self.layout.init)  # type: ignore[arg-type]

    def steps(self, tid: int) -> tuple[Step, ...]:
        got = self._steps.get(tid)
        if got is None:
            self.terms.poll()  # the deadline: a term's steps recurse over its operands
            got = tuple(self._compute(self.terms.table[tid]))
            self._steps[tid] = got
        return got

    def resolve_target(self, target: object, post: Sequence[int]) -> int:
        return target if isinstance(target, int) else target(post)  # type: ignore[operator]

    # ------------------------------------------------------------------ rules
    def _compute(self, t: tuple) -> list[Step]:
        tag = t[0]
        if tag in ("omega", "stop", "hole"):
            return []
        rule = _RULES.get(tag)
        if rule is not None:
            return rule(self, t)
        if tag == "skip":
            return [Step(TICK, None, (), (), (), False, self.omega)]
        if tag == "pre":
            return self.prefixes.steps(t)
        if tag == "ichoice":
            return [Step(TAU, None, (), (), (), False, part) for part in t[1]]
        if tag == "err":  # a failed call: the state is a model error when this is evaluated
            return [Step(TAU, None, (), (("fault", t[1], t[2]),), (), False, self.omega)]
        cond = self._condition(t)
        if tag == "guard":
            return [replace(s, guard=(cond,) + s.guard) for s in self.steps(t[3])]
        assert tag == "if"
        then = [replace(s, guard=(cond,) + s.guard) for s in self.steps(t[3])]
        other = negate(cond)
        return then + [replace(s, guard=(other,) + s.guard) for s in self.steps(t[4])]

    def _condition(self, t: tuple) -> IR:
        node = self.terms.node(t[1])
        return self.compiler.compile(node.cond, dict(t[2]))  # type: ignore[attr-defined]

    def wrap(self, target: object, build: Callable[[int], tuple]) -> object:
        if isinstance(target, int):
            return self.terms.intern(build(target))
        assert isinstance(target, (Deferred, Joint))
        return target.wrapped(build)

    def _mark(self, t: tuple) -> list[Step]:
        """Component p in place: its variables relocated to its region, its targets' markers
        tagged with p (where their activations come from)."""
        _, p, inner, base = t
        mine = frozenset((p,))
        if not self.layout.frames:
            return [replace(s, parts=mine) for s in self.steps(inner)]
        return [self._placed(s, p, base, mine) for s in self.steps(inner)]

    def _placed(self, s: Step, p: int, base: int, mine: frozenset) -> Step:
        def rel(ir: IR) -> IR:
            return relocate(ir, base, self.layout)

        writes = tuple(
            replace(w, loc=rel(w.loc), value=rel(w.value), index=tuple(rel(x) for x in w.index))
            for w in s.writes
        )
        label = s.label
        if label is not None and label[0] in ("send", "recv"):
            label = label[:2] + (tuple(rel(x) for x in label[2]), tuple(rel(x) for x in label[3]))
        target = (
            self.terms.retag(s.target, p) if isinstance(s.target, int) else s.target.placed(p, base)
        )
        return replace(
            s,
            guard=tuple(rel(g) for g in s.guard),
            fields=tuple(rel(f) for f in s.fields),
            writes=writes,
            checks=tuple((rel(a), k, e) for a, k, e in s.checks),
            label=label,
            target=target,
            parts=mine,
        )

    def _ext(self, t: tuple) -> list[Step]:
        """The steps of a chain `P1 [] ... [] Pn`, its operands' in order: a visible step
        resolves the choice, an internal one keeps the chain with Pi replaced by its target.
        Taken over the whole chain at once (not per nested pair, which copies every step
        list once per level: quadratic in n)."""
        terms = self.terms
        ops = terms.operands(terms.intern(t))
        out = []
        for i, o in enumerate(ops):

            def build(x: int, i: int = i) -> tuple:
                return terms.ext_all(ops[:i] + [x] + ops[i + 1 :])

            out += [
                replace(s, target=self.wrap(s.target, build)) if s.kind == TAU else s
                for s in self.steps(o)
            ]
        return out

    def _select(self, t: tuple) -> list[Step]:
        """`if :: … fi`: every step of every branch, each discarding the others; the else
        branch's steps only where no branch has a step."""
        _, branches, orelse = t
        out = [s for b in branches for s in self.steps(b)]
        if orelse is None or any(not s.guard for s in out):
            return out
        none = tuple(negate(conjoin(s.guard)) for s in out)
        return out + [replace(s, guard=none + s.guard) for s in self.steps(orelse)]

    def _seq(self, t: tuple) -> list[Step]:
        tag, first, qkey, qenv = t
        out = []
        poll = self.terms.poll  # a chain of n `[>` has n steps at each of its n levels
        for s in self.steps(first):
            poll()
            if tag == "seq" and s.kind == TICK:
                target, fault = self.prefixes.target(self.terms.node(qkey), dict(qenv))
                out.append(replace(s, kind=TAU, target=target, fault=fault))
            elif tag == "seq" or s.kind == TAU:
                out.append(replace(s, target=self.wrap(s.target, lambda x: (tag, x, qkey, qenv))))
            else:
                out.append(s)  # `[>`: a visible event or tick of the left resolves it
        if tag == "slide":
            target, fault = self.prefixes.target(self.terms.node(qkey), dict(qenv))
            out.append(Step(TAU, None, (), (), (), False, target, fault=fault))
        return out

    def _interrupt(self, t: tuple) -> list[Step]:
        _, left, right = t
        out = []
        poll = self.terms.poll
        for s in self.steps(left):
            poll()
            if s.kind == TICK:
                out.append(replace(s, target=self.omega))
            else:
                out.append(replace(s, target=self.wrap(s.target, lambda x: ("intr", x, right))))
        for s in self.steps(right):
            out.append(
                replace(s, target=self.wrap(s.target, lambda x: ("intr", left, x)))
                if s.kind == TAU
                else s
            )
        return out

    def _relabel(self, t: tuple) -> list[Step]:
        """Hiding (events of the set become taus) and renaming (an event related to others
        becomes each of them); a tick ends either."""
        tag, rel, inner = t
        sources = rel if tag == "hide" else frozenset(src for src, _ in rel)
        out = []
        for s in self.steps(inner):
            if s.kind == TICK:
                out.append(replace(s, target=self.omega))
                continue
            s = replace(s, target=self.wrap(s.target, lambda x: (tag, rel, x)))
            if s.kind != EVENT:
                out.append(s)
                continue
            for v, q in classify(s, sources):
                if q is None:
                    out.append(v)
                elif tag == "hide":
                    out.append(replace(v, kind=TAU, hidden=True))
                else:
                    out.extend(renamed(v, q, rel))
        return out

    # ------------------------------------------------------------------ parallel
    def _par(self, t: tuple) -> list[Step]:
        """‖_A (P1 … Pn) (`par`, events of the set need every part) and the alphabetised
        parallel (`apar`: part i performs only events of its alphabet, and an event needs
        every part whose alphabet has it)."""
        tag, sets, parts = t
        prefixes = sets if tag == "par" else frozenset().union(*sets)
        out: list[Step] = []
        offers: dict[tuple, dict[int, list[Step]]] = {}
        for i, part in enumerate(parts):
            for s in self.steps(part):
                if s.kind != EVENT:
                    if s.kind == TICK:
                        s = replace(s, kind=TAU, target=self.omega)
                    out.append(
                        replace(
                            s,
                            target=self._replace_part(parts, t, {i: s.target}),
                            movers=_prefixed(i, s.movers),
                        )
                    )
                    continue
                for v, q in classify(s, prefixes):
                    if tag == "par" and q is None:
                        out.append(
                            replace(
                                v,
                                target=self._replace_part(parts, t, {i: v.target}),
                                movers=_prefixed(i, v.movers),
                            )
                        )
                    elif q is not None and (tag == "par" or i in owners(q, sets)):
                        key = (v.channel,) if tag == "par" else q
                        offers.setdefault(key, {}).setdefault(i, []).append(v)
        for key in sorted(offers, key=repr):
            who = range(len(parts)) if tag == "par" else sorted(owners(key, sets))
            if all(i in offers[key] for i in who):
                out.extend(self._synchronise(offers[key], list(who), parts, t))
        ended = self._terminated(parts)
        if ended is not None:
            out.append(Step(TICK, None, (), (), (), False, self.omega, parts=ended))
        return out

    def _terminated(self, parts: tuple[int, ...]) -> frozenset | None:
        """The components taking part when every part has terminated (None: not all have)."""
        table, omega = self.terms.table, self.omega
        marks: set[int] = set()
        for p in parts:
            t = table[p]
            if t[0] == "mark" and t[2] == omega:
                marks.add(t[1])
            elif p != omega:
                return None
        return frozenset(marks)

    def _replace_part(self, parts: tuple[int, ...], t: tuple, new: dict[int, object]) -> object:
        intern, tag, sets = self.terms.intern, t[0], t[1]
        if all(isinstance(v, int) for v in new.values()):
            return intern((tag, sets, tuple(new.get(i, p) for i, p in enumerate(parts))))

        if len(new) == 1:
            ((i, inner),) = new.items()
            assert isinstance(inner, (Deferred, Joint))
            return inner.wrapped(lambda x: (tag, sets, parts[:i] + (x,) + parts[i + 1 :]))

        def build(post: Sequence[int]) -> int:  # several synchronised parts, some deferred
            resolved = {i: v if isinstance(v, int) else v(post) for i, v in new.items()}  # type: ignore[operator]
            return intern((tag, sets, tuple(resolved.get(i, p) for i, p in enumerate(parts))))

        return Joint(self.terms, build)

    def _synchronise(
        self, offers: dict[int, list[Step]], who: list[int], parts: tuple[int, ...], t: tuple
    ) -> list[Step]:
        first = who[0]
        partial: list[tuple[Step, dict[int, object]]] = [
            (replace(s, movers=_prefixed(first, s.movers)), {first: s.target})
            for s in offers[first]
        ]
        for i in who[1:]:
            nxt = []
            exact, wild = _by_values(offers[i])
            for acc, targets in partial:
                self.terms.poll()
                for s in _partners(acc, offers[i], exact, wild):
                    merged = _merge(acc, replace(s, movers=_prefixed(i, s.movers)))
                    if merged is not None:
                        nxt.append((merged, {**targets, i: s.target}))
            partial = nxt
            if not partial:
                return []
        if len(who) == 1:
            return [
                replace(s, target=self._replace_part(parts, t, targets)) for s, targets in partial
            ]
        return [
            replace(
                s,
                target=self._replace_part(parts, t, targets),
                synced=True,
                conflict=len(s.writes) > 1 or s.conflict,
            )
            for s, targets in partial
        ]


_RULES: dict[str, Callable[[Semantics, tuple], list[Step]]] = {
    "mark": Semantics._mark,
    "ext": Semantics._ext,
    "sel": Semantics._select,
    "seq": Semantics._seq,
    "slide": Semantics._seq,
    "intr": Semantics._interrupt,
    "hide": Semantics._relabel,
    "rename": Semantics._relabel,
    "par": Semantics._par,
    "apar": Semantics._par,
}


# ---------------------------------------------------------------------- sets of events
def matches(s: Step, prefix: tuple) -> IR:
    """Whether the step's event starts with prefix (an IR: constant when the fields are)."""
    if prefix[0] != s.channel:
        return ("k", 0)
    return conjoin([fold(("op", "==", f, ("k", v), -1)) for f, v in zip(s.fields, prefix[1:])])


def classify(s: Step, prefixes: frozenset) -> list[tuple[Step, tuple | None]]:
    """The step split by the longest prefix of the set that starts its event (None: no
    prefix does); each part guarded by the condition on its fields, when they are not
    constants (appended to the step's own guards, which are evaluated first)."""
    mine = sorted((p for p in prefixes if p[0] == s.channel), key=len)
    if not mine:
        return [(s, None)]
    if len(mine) == 1 and len(mine[0]) == 1:
        return [(s, mine[0])]
    out: list[tuple[Step, tuple | None]] = []
    for q in [*mine, None]:
        longer = [p for p in mine if q is None or (len(p) > len(q) and p[: len(q)] == q)]
        parts = ([matches(s, q)] if q is not None else []) + [negate(matches(s, p)) for p in longer]
        cond = conjoin(parts)
        if cond == ("k", 0):
            continue
        out.append((s if cond == ("k", 1) else replace(s, guard=s.guard + (cond,)), q))
    return out


def owners(q: tuple, alphas: Sequence[frozenset]) -> set[int]:
    """The parts whose alphabet holds the events whose longest listed prefix is q."""
    return {i for i, a in enumerate(alphas) if any(q[:k] in a for k in range(1, len(q) + 1))}


def renamed(s: Step, q: tuple, pairs: frozenset) -> list[Step]:
    """The images of an event whose longest source prefix is q, one step each."""
    out = []
    for src, dst in sorted(pairs, key=repr):
        if q[: len(src)] == src:
            fields = tuple(("k", v) for v in dst[1:]) + s.fields[len(src) - 1 :]
            out.append(replace(s, channel=dst[0], fields=fields))
    return out


def _values(s: Step) -> tuple | None:
    """The event of a step whose every field is a constant, or None."""
    if all(f[0] == "k" for f in s.fields):
        return (s.channel, *(f[1] for f in s.fields))
    return None


def _by_values(offers: list[Step]) -> tuple[dict[tuple, list[int]], list[int]]:
    """The offers (by position) of each constant event, and those with computed fields."""
    exact: dict[tuple, list[int]] = {}
    wild: list[int] = []
    for n, s in enumerate(offers):
        key = _values(s)
        if key is None:
            wild.append(n)
        else:
            exact.setdefault(key, []).append(n)
    return exact, wild


def _partners(
    acc: Step, offers: list[Step], exact: dict[tuple, list[int]], wild: list[int]
) -> list[Step]:
    """The offers that may synchronise with acc, in their order: for a constant event, only
    the same event or a computed one (`_merge` refuses the others), so that two sides of a
    channel of n values cost n pairs, not n^2."""
    key = _values(acc)
    if key is None:
        return offers
    same = exact.get(key, [])
    return [offers[n] for n in (sorted(same + wild) if wild else same)]


def _merge(a: Step, b: Step) -> Step | None:
    """Two processes' offers of one event on a synchronised channel, as one step (or None)."""
    fields: list[IR] = []
    guard = list(a.guard) + list(b.guard)
    for fa, fb in zip(a.fields, b.fields):
        if fa[0] == "k" and fb[0] == "k":
            if fa[1] != fb[1]:
                return None
            fields.append(fa)
        elif fa == fb:
            fields.append(fa)
        else:
            guard.append(("op", "==", fa, fb, -1))
            fields.append(fa if fa[0] == "k" else fb)
    fault = a.fault or b.fault
    return Step(
        EVENT,
        a.channel,
        tuple(fields),
        tuple(guard),
        a.writes + b.writes,
        a.crash or b.crash,
        None,
        checks=a.checks + b.checks,
        synced=True,
        movers=a.movers | b.movers,
        parts=a.parts | b.parts,
        fault=fault,
        conflict=a.conflict or b.conflict,
    )


def _prefixed(i: int, movers: frozenset) -> frozenset:
    return frozenset((i,) + m for m in movers)


# Step, Write and the step kinds are defined in fito/semantics/rules/step.py; named here too
# for the modules that take a model's steps from its rules (semantics/compiled.py, check/).
__all__ = ["EVENT", "TAU", "TICK", "Semantics", "Step", "Write", "owners"]
