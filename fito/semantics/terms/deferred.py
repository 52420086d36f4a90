"""Targets of a step that read the state after it: a call whose arguments read the state
(`Deferred`), and the joint target of a synchronised step whose parts do (`Joint`). The
engine makes them once the state after the step is known."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from fito.lang import nodes as A
from fito.semantics.ir import IR, relocate

if TYPE_CHECKING:
    from fito.semantics.terms.closures import Terms


@dataclass(frozen=True, slots=True, eq=False)
class Deferred:
    """A target that reads the state after the step: a call whose arguments read it.
    `wrap` rebuilds the enclosing term around the made term (innermost operator first);
    `base` is where the component's variables start in the state."""

    terms: Terms
    body: A.Proc
    env: Mapping[str, object]
    wrap: tuple[Callable[[int], tuple], ...] = ()
    base: int = 0

    def __call__(self, post: Sequence[int]) -> int:
        return self.around(self.terms.make(self.body, self.env, post, self.base))

    def around(self, tid: int) -> int:
        for build in self.wrap:
            tid = self.terms.intern(build(tid))
        return tid

    def wrapped(self, build: Callable[[int], tuple]) -> Deferred:
        return replace(self, wrap=self.wrap + (build,))

    def placed(self, p: int, base: int) -> Deferred:
        """At position p of a configuration, its variables at base: markers retagged."""
        terms = self.terms
        return replace(self, base=base).wrapped(lambda x: terms.table[terms.retag(x, p)])

    def arguments(self) -> tuple[IR, ...] | None:
        """The arguments' IRs when the target is one call whose arguments alone read the state."""
        if not isinstance(self.body, A.ProcRef):
            return None
        layout = self.terms.compiler.layout
        return tuple(
            relocate(self.terms.compiler.compile(a, self.env), self.base, layout)
            for a in self.body.args
        )

    def with_arguments(self, values: Sequence[int]) -> int:
        """The target term for given argument values (NeedsState if more of it reads the
        state; Fault if a value is outside its parameter's type)."""
        assert isinstance(self.body, A.ProcRef)
        terms = self.terms
        terms.fresh = 0
        body, inner = terms.enter(self.body, values, self.env)
        return self.around(terms.intern(terms._make(body, inner, None, 1, self.base)))


@dataclass(frozen=True, slots=True, eq=False)
class Joint:
    """The target of a synchronised step where several parts' targets read the state."""

    terms: Terms
    build: Callable[[Sequence[int]], int]

    def __call__(self, post: Sequence[int]) -> int:
        return self.build(post)

    def wrapped(self, build: Callable[[int], tuple]) -> Joint:
        inner, intern = self.build, self.terms.intern
        return Joint(self.terms, lambda post: intern(build(inner(post))))

    def placed(self, p: int, base: int) -> Joint:
        terms = self.terms
        return self.wrapped(lambda x: terms.table[terms.retag(x, p)])

    def arguments(self) -> None:
        return None
