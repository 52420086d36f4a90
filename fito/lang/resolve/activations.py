"""Buffered channels, process-local variables and user functions (a mixin of `Resolver`).

A process definition's `var` parameters and `var` declarations make up its *activation*
(docs/semantics.md); while its body is checked, `Resolver.frame` maps their names to their
`Variable`s, so that expressions may read them and assignments write them. A function's
body sees its parameters, constants and cells, never a process's variables.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from fito.diagnostics import Diagnostic, Span
from fito.lang import nodes as A
from fito.lang.resolve.model import INT, Channel, Function, ValueType, Variable, size

MAX_BUFFER = 1_000  # messages one buffer may hold
MAX_ARRAY = 1_000_000  # elements of one local array (as for cells)


class ActivationRules:
    """Definitions of buffer capacities, process activations (their variables) and user
    functions; expects the attributes of `Resolver`."""

    names: dict[str, tuple[str, object, Span]]
    diagnostics: list[Diagnostic]
    variables: dict[str, tuple[Variable, ...]]
    functions: dict[str, Function]
    frame: dict[str, Variable]
    failed: set[str]
    processes: dict[str, A.ProcessDecl]
    channels: dict[str, Channel]

    if TYPE_CHECKING:  # provided by Resolver and DeclarationRules

        def err(
            self,
            code: str,
            message: str,
            span: Span,
            hint: str | None = None,
            notes: tuple[str, ...] = (),
        ) -> None: ...

        def infer(self, e: A.Expr, scope: Mapping[str, ValueType]) -> ValueType | None: ...

        def finite_type(self, t: A.TypeExpr, what: str) -> ValueType | None: ...

        def const_eval(
            self, e: A.Expr, bound: Mapping[str, int] | None = None, what: str = "a constant"
        ) -> int | None: ...

    # ------------------------------------------------------------------ buffered channels
    def buffer_capacity(self, name: str, decl: A.ChannelDecl) -> int:
        """The capacity of a channel (0: synchronous), reported once per declaration."""
        if decl.buffer is None:
            return 0
        if name == "crash":
            self.err("T001", "the crash channel cannot be buffered", decl.buffer.span)
            return 0
        first = next(n for n in decl.names if n != "crash")
        known = self.channels.get(first) if first != name else None
        if known is not None:
            return known.capacity
        n = self.const_eval(decl.buffer, what="a buffer capacity")
        if n is None:
            return 0
        if not 0 <= n <= MAX_BUFFER:
            self.err(
                "T007",
                f"a buffer holds 0 to {MAX_BUFFER:,} messages, not {n}",
                decl.buffer.span,
                hint="`buffer 0` is a synchronous channel",
            )
            return 0
        return n

    # ------------------------------------------------------------------ local variables
    def define_variables(
        self, d: A.ProcessDecl, params: Mapping[str, ValueType]
    ) -> dict[str, Variable]:
        """The variables of d's activation (`var` parameters, then locals), as a frame."""
        frame: dict[str, Variable] = {}
        for p in d.params:
            if p.var and p.name in params:
                frame[p.name] = Variable(p.name, (), params[p.name], True, None)
        for v in d.locals:
            if v.name in params or v.name in frame:
                self.err(
                    "R002", f"'{v.name}' is already a parameter or variable of '{d.name}'", v.span
                )
                continue
            var = self._local_variable(v, params)
            if var is not None:
                frame[v.name] = var
        self.variables[d.name] = tuple(frame.values())
        return frame

    def _local_variable(self, v: A.LocalVar, params: Mapping[str, ValueType]) -> Variable | None:
        index_types = [self.finite_type(p.type, "an array index") for p in v.indices]
        vtype = self.finite_type(v.type, "a variable")
        if vtype is None or any(t is None for t in index_types):
            return None
        known = [t for t in index_types if t is not None]
        count = 1
        for t in known:
            count *= size(t) or 1
        if count > MAX_ARRAY:
            self.err(
                "S002",
                f"the array '{v.name}' has {count:,} elements, more than {MAX_ARRAY:,}",
                v.span,
            )
            return None
        scope = dict(params)
        scope.update((p.name, t) for p, t in zip(v.indices, known))
        got = self.infer(v.init, scope)
        if got is not None and got.kind() != vtype.kind():
            self.err(
                "T001",
                f"initial value of '{v.name}' is {got.kind()}, the variable holds {vtype.kind()}",
                v.init.span,
            )
        for name in _free_cells(self, v.init, scope):
            self.err(
                "T006",
                f"the initial value of '{v.name}' reads '{name}'",
                v.init.span,
                hint="an initial value may use constants, parameters and the index names",
            )
            break
        return Variable(
            v.name, tuple(known), vtype, v.durable, v.init, tuple(p.name for p in v.indices)
        )

    # ------------------------------------------------------------------ functions
    def function_sig(self, name: str) -> Function | None:
        """The parameter and result types of a user function (None after an error)."""
        if name in self.functions:
            return self.functions[name]
        decl = self.names[name][1]
        assert isinstance(decl, A.FunDecl)
        params = tuple(self.finite_type(p.type, "a parameter") for p in decl.params)
        result = self.finite_type(decl.result, "a function result")
        if result is None or any(t is None for t in params):
            self.failed.add(name)
            return None
        fn = Function(name, tuple(t or INT for t in params), result, decl)
        self.functions[name] = fn
        return fn

    def check_function(self, d: A.FunDecl) -> None:
        """The body's type against the result type; `var` parameters are refused."""
        fn = self.function_sig(d.name) if self.names.get(d.name, ("", d))[1] is d else None
        if fn is None:
            return
        scope: dict[str, ValueType] = {}
        for p, t in zip(d.params, fn.params):
            if p.var:
                self.err("T011", f"a function parameter cannot be `var` ('{p.name}')", p.span)
            if p.name in scope:
                self.err("R002", f"parameter '{p.name}' is declared twice", p.span)
            scope[p.name] = t
        got = self.infer(d.body, scope)
        if got is not None and got.kind() != fn.result.kind():
            self.err(
                "T001",
                f"'{d.name}' returns {fn.result.kind()}, its body is {got.kind()}",
                d.body.span,
            )

    def check_function_recursion(self) -> None:
        """A function that calls itself, directly or through others, is R008."""
        calls = {
            name: set(_called_functions(fn.decl.body, self.functions))
            for name, fn in self.functions.items()
        }
        for start in sorted(_on_cycles(calls)):
            self.err(
                "R008",
                f"function '{start}' calls itself",
                self.functions[start].decl.name_span,
                hint="functions are not recursive: unfold the "
                "recursion by hand, or write a process",
            )


def _on_cycles(calls: dict[str, set[str]]) -> set[str]:
    """The functions that can reach themselves through calls: those in a strongly connected
    component of more than one, or calling themselves (Tarjan's algorithm, without recursion:
    linear in the calls, where a search from every function was quadratic in a chain)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: set[str] = set()
    for root in sorted(calls):
        if root in index:
            continue
        work = [(root, iter(sorted(calls[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            w = next(edges, None)
            if w is not None:
                if w not in calls:
                    continue
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(calls[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1 or v in calls[v]:
                    out.update(component)
    return out


def _nodes(e: object) -> Iterator[object]:
    work: list[object] = [e]
    while work:
        x = work.pop()
        if isinstance(x, tuple):
            work.extend(x)
        elif hasattr(x, "__dataclass_fields__"):
            yield x
            work.extend(getattr(x, f) for f in x.__dataclass_fields__ if f != "span")


def _called_functions(e: A.Expr, functions: Mapping[str, object]) -> Iterator[str]:
    for x in _nodes(e):
        if isinstance(x, A.Call) and x.func in functions:
            yield x.func


def _free_cells(r: ActivationRules, e: A.Expr, scope: Mapping[str, ValueType]) -> Iterator[str]:
    """Cells (and buffers) that e reads outside the names bound in scope."""
    inner = {x.var for x in _nodes(e) if isinstance(x, (A.Quant, A.Let))}
    for x in _nodes(e):
        if isinstance(x, A.Name) and x.id not in scope and x.id not in inner:
            if r.names.get(x.id, ("",))[0] == "cell":
                yield x.id
        elif isinstance(x, A.Call) and x.func in ("len", "empty", "full"):
            yield x.func + "(...)"
