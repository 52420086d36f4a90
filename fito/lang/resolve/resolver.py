"""Name resolution and static checks: AST -> `Model`, with diagnostics (never exceptions).

Names are global (one namespace) and resolved after the whole file is read. The checks:
undefined and duplicate names, process arity, channel field counts and types, assignments
to undeclared cells, two writes to one cell in one block, non-constant or empty ranges,
constants out of a declared range, unguarded recursion, and what a term would cost to
enumerate. Every problem is reported once, where it is, and checking goes on: a name whose
definition failed is known to have failed, so its uses add no further diagnostics.

`Resolver` is one class in parts: constants, types, channels and cells are defined by
`fito.lang.resolve.declarations`, buffers, process variables and functions by
`fito.lang.resolve.activations`; expressions are typed by `fito.lang.resolve.inference`,
process terms checked by `fito.lang.resolve.processes` (their assignments and blocks by
`fito.lang.resolve.statements`) and their costs by `fito.lang.resolve.costs`. The result is
a `fito.lang.resolve.model.Model`.
"""

from __future__ import annotations

from collections.abc import Mapping

from fito.diagnostics import Diagnostic, Span, error, warning
from fito.lang import nodes as A
from fito.lang.resolve import inference, loops, processes
from fito.lang.resolve.activations import ActivationRules
from fito.lang.resolve.costs import check_costs
from fito.lang.resolve.declarations import DeclarationRules, a_kind
from fito.lang.resolve.model import (
    CRASH,
    BoolT,
    Cell,
    Channel,
    EnumT,
    Function,
    Model,
    ValueType,
    Variable,
)
from fito.lang.resolve.temporal import check_ltl
from fito.lang.syntax.parser import no_gc

MAX_SUGGESTIONS = 100  # misspellings that get a `did you mean` hint, per file
MAX_POOL = 500  # candidates compared for one hint (same first letter, similar length)


class Resolver(ActivationRules, DeclarationRules):
    """Builds the Model; every problem is appended to `diagnostics`."""

    def __init__(self, spec: A.Spec) -> None:
        self.spec = spec
        self.diagnostics: list[Diagnostic] = []
        self.names: dict[str, tuple[str, object, Span]] = {}
        self.consts: dict[str, tuple[ValueType, int]] = {}
        self.types: dict[str, ValueType] = {}
        self.members: dict[str, tuple[EnumT, int]] = {}
        self.channels: dict[str, Channel] = {}
        self.cells: dict[str, Cell] = {}
        self.processes: dict[str, A.ProcessDecl] = {}
        self.param_types: dict[str, tuple[ValueType, ...]] = {}
        self.quantifiers: list[ValueType | None] = []  # domains of the enclosing quantifiers
        self.failed: set[str] = set()  # names whose definition was reported as wrong
        self.enum_decls: set[int] = set()  # ids of the type declarations that are enumerations
        self._evaluating: dict[str, None] = {}
        self._type_cache: dict[str, ValueType | None] = {}
        self._suggestions: dict[tuple[str, str | None], str | None] = {}
        self.variables: dict[str, tuple[Variable, ...]] = {}
        self.frame: dict[str, Variable] = {}  # the variables in scope (of the process checked)
        self.functions: dict[str, Function] = {}

    # ------------------------------------------------------------------ helpers
    def err(
        self,
        code: str,
        message: str,
        span: Span,
        hint: str | None = None,
        notes: tuple[str, ...] = (),
    ) -> None:
        self.diagnostics.append(error(code, message, span, hint=hint, notes=notes))

    def suggest(self, name: str, kind: str | None = None) -> str | None:
        """`did you mean 'x'?` for a misspelt name (of that kind, when given).

        Answers are cached, and only the first `MAX_SUGGESTIONS` distinct misspellings get
        one, so a file full of unknown names costs no quadratic search.
        """
        from fito.lang.syntax.foreign import FOREIGN_NAMES  # lazy-import: misspellings only

        if name in FOREIGN_NAMES and name not in self.names:
            return FOREIGN_NAMES[name]
        key = (name, kind)
        if key not in self._suggestions:
            if len(self._suggestions) >= MAX_SUGGESTIONS:
                return None
            import difflib  # lazy-import: misspellings only

            first = name[:1].lower()
            pool = [
                n
                for n, entry in self.names.items()
                if (kind is None or entry[0] == kind)
                and abs(len(n) - len(name)) <= 2
                and n[:1].lower() == first
            ][:MAX_POOL]
            close = difflib.get_close_matches(name, pool, n=1, cutoff=0.75)
            self._suggestions[key] = f"did you mean '{close[0]}'?" if close else None
        return self._suggestions[key]

    def _declare(self, name: str, kind: str, decl: object, span: Span) -> None:
        if name in self.names:
            prev_kind, _, prev = self.names[name]
            self.diagnostics.append(
                error(
                    "R002",
                    f"'{name}' is already declared (as {a_kind(prev_kind)}, line {prev.line})",
                    span,
                    notes=(f"first declared at line {prev.line}, column {prev.column}",),
                )
            )
            return
        self.names[name] = (kind, decl, span)

    # ------------------------------------------------------------------ entry point
    def run(self) -> Model:
        self.enum_decls = enumeration_decls(self.spec.decls)
        for d in self.spec.decls:
            self._collect(d)
        if CRASH not in self.names:
            self.channels[CRASH] = Channel(CRASH, ())
        for name, (kind, decl, _) in list(self.names.items()):
            self.define(name, kind, decl)
        systems = [d for d in self.spec.decls if isinstance(d, A.SystemDecl)]
        for extra in systems[1:]:
            self.err(
                "R002",
                "a second `system` declaration",
                extra.span,
                hint="a spec has one system process",
                notes=(f"the first is at line {systems[0].span.line}",),
            )
        assertions: list[A.AssertDecl] = []
        for d in self.spec.decls:
            if isinstance(d, A.ProcessDecl):
                self._check_process_decl(d)
            elif isinstance(d, A.SystemDecl):
                self.check_proc(d.proc, {}, initial=True)
            elif isinstance(d, A.AssertDecl):
                self._check_assertion(d, systems)
                assertions.append(d)
            elif isinstance(d, A.FunDecl):
                self.check_function(d)
        self._check_guarded_recursion()
        self._check_growing_choices()
        self.check_function_recursion()
        pipelines = tuple(d for d in self.spec.decls if isinstance(d, A.PipelineDecl))
        return Model(
            self.spec,
            self.consts,
            self.types,
            self.members,
            self.channels,
            self.cells,
            self.processes,
            self.param_types,
            systems[0].proc if systems else None,
            tuple(assertions),
            pipelines,
            self.variables,
            self.functions,
            self._end_processes(),
        )

    def _end_processes(self) -> frozenset[str]:
        """The names of `end P, Q` declarations, each a process (R001 or R004 if not)."""
        out: set[str] = set()
        for d in self.spec.decls:
            if not isinstance(d, A.EndDecl):
                continue
            for name, span in zip(d.names, d.name_spans or (d.span,) * len(d.names)):
                if name in self.processes:
                    out.add(name)
                elif name in self.names:
                    self.err(
                        "R004",
                        f"'{name}' is not a process: `end` names the processes whose start "
                        "is a valid end location",
                        span,
                    )
                else:
                    self.err("R001", f"undefined process '{name}'", span)
        return frozenset(out)

    def _collect(self, d: A.Decl) -> None:
        if isinstance(d, A.ConstDecl):
            self._declare(d.name, "const", d, d.name_span)
        elif isinstance(d, A.TypeDecl):
            self._declare(d.name, "type", d, d.name_span)
            if id(d) in self.enum_decls:
                for item in d.rhs.items:  # type: ignore[union-attr]
                    self._declare(item.id, "member", d, item.span)  # type: ignore[union-attr]
        elif isinstance(d, A.ChannelDecl):
            for name, span in zip(d.names, d.name_spans or (d.span,) * len(d.names)):
                self._declare(name, "channel", d, span)
        elif isinstance(d, A.DomainDecl):
            self._declare(d.name, "cell", d, d.name_span)
        elif isinstance(d, A.ProcessDecl):
            self._declare(d.name, "process", d, d.name_span)
            self.processes.setdefault(d.name, d)
        elif isinstance(d, A.PipelineDecl):
            self._declare(d.name, "pipeline", d, d.name_span)
        elif isinstance(d, A.FunDecl):
            self._declare(d.name, "function", d, d.name_span)

    # ------------------------------------------------------------------ expressions
    def infer(self, e: A.Expr, scope: Mapping[str, ValueType]) -> ValueType | None:
        """The type of e (None after an error, which has been reported)."""
        return inference.infer(self, e, scope)

    # ------------------------------------------------------------------ processes
    def _check_process_decl(self, d: A.ProcessDecl) -> None:
        if self.processes.get(d.name) is not d:
            return
        scope: dict[str, ValueType] = {}
        for p, t in zip(d.params, self.param_types.get(d.name, ())):
            if p.name in scope:
                self.err("R002", f"parameter '{p.name}' is declared twice", p.span)
            scope[p.name] = t
        self.frame = self.define_variables(d, scope)
        for p in d.params:
            if p.var:
                scope.pop(p.name, None)  # read from the activation, and assignable (absent
                # when its type did not resolve)
        try:
            self.check_proc(d.body, scope)
        finally:
            self.frame = {}

    def check_proc(self, p: A.Proc, scope: Mapping[str, ValueType], initial: bool = False) -> None:
        """Static checks of a process term (`initial`: a system's or an assertion's term,
        whose calls are evaluated when the check starts), and what it costs."""
        processes.check_proc(self, p, scope)
        check_costs(self, p, scope, initial)

    def _check_assertion(self, d: A.AssertDecl, systems: list[A.SystemDecl]) -> None:
        if d.proc is None and not systems:
            self.err(
                "R005",
                "this assertion names no process and the spec has no `system`",
                d.span,
                hint="add `system Name` or name the process in the assertion",
            )
        if d.proc is not None:
            self.check_proc(d.proc, {}, initial=True)
        if d.spec is not None:
            self.check_proc(d.spec, {}, initial=True)
        if d.expr is not None:
            t = self.infer(d.expr, {})
            if t is not None and not isinstance(t, BoolT):
                self.err("T001", f"a property must be Bool, this is {t.kind()}", d.expr.span)
        if d.formula is not None:
            check_ltl(self, d)

    def _check_growing_choices(self) -> None:
        constants = set(self.consts) | set(self.members)
        for g in loops.growing_choices(self.processes, constants):
            self.diagnostics.append(
                warning(
                    "T601",
                    f"the recursion {' -> '.join(g.cycle)} goes through `[]` after internal "
                    f"steps, which do not resolve the choice of '{g.process}': its other "
                    "operands stay on offer and every round adds copies, so the state space "
                    "may not close",
                    g.step.span,
                    hint="to commit with the first step write if :: P :: Q fi, or begin "
                    "the operand with a visible event",
                )
            )

    def _check_guarded_recursion(self) -> None:
        for name, span in processes.unguarded_cycles(self.processes):
            self.err(
                "T010",
                f"process '{name}' can recurse without performing an event",
                span,
                hint="put a prefix `a -> ...` before the recursive call",
            )


def resolve(spec: A.Spec) -> tuple[Model, tuple[Diagnostic, ...]]:
    """Resolve names and run the static checks."""
    r = Resolver(spec)
    try:
        with no_gc():
            model = r.run()
    except RecursionError:  # a pathological nesting the iterative walkers do not cover
        r.err(
            "P005",
            "the spec nests too deeply to be checked",
            spec.span,
            hint="split deeply nested terms into named constants or processes",
        )
        model = Model(
            spec,
            r.consts,
            r.types,
            r.members,
            r.channels,
            r.cells,
            r.processes,
            r.param_types,
            None,
            (),
            (),
            r.variables,
            r.functions,
        )
    return model, tuple(r.diagnostics)


def enumeration_decls(decls: tuple[A.Decl, ...]) -> set[int]:
    """The ids of the `type T = {a, b}` declarations that declare enumerations.

    Braces of plain names declare an enumeration, except when they only list members of
    enumerations declared elsewhere (`type Fast = {gpu, host}`: a subset of Dom, in any
    order) or name constants (`type S = {A, B}`: a set of values). A name in two
    enumerations is an error (R002) at the second.
    """
    others = {n for d in decls if not isinstance(d, A.TypeDecl) for n in _declared_names(d)}
    braces = [d for d in decls if isinstance(d, A.TypeDecl) and _plain_names(d.rhs) is not None]
    uses: dict[str, int] = {}
    for d in braces:
        for n in set(_plain_names(d.rhs) or ()):
            uses[n] = uses.get(n, 0) + 1
    enums: set[int] = set()
    members: set[str] = set()
    for d in braces:  # a name of its own makes an enumeration
        names = _plain_names(d.rhs) or ()
        if not any(n in others for n in names) and any(uses[n] == 1 for n in names):
            enums.add(id(d))
            members.update(names)
    for d in braces:  # the rest: subsets of those, or (in order) enumerations themselves
        names = _plain_names(d.rhs) or ()
        if id(d) in enums or any(n in others for n in names) or all(n in members for n in names):
            continue
        enums.add(id(d))
        members.update(names)
    return enums


def _plain_names(t: A.TypeExpr) -> tuple[str, ...] | None:
    if isinstance(t, A.SetType) and t.items and all(isinstance(i, A.Name) for i in t.items):
        return tuple(i.id for i in t.items)  # type: ignore[union-attr]
    return None


def _declared_names(d: A.Decl) -> tuple[str, ...]:
    if isinstance(d, A.ChannelDecl):
        return d.names
    name = getattr(d, "name", None)
    return (name,) if isinstance(name, str) else ()


__all__ = ["Resolver", "enumeration_decls", "resolve"]
