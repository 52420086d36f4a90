"""Name resolution and static checks: AST -> `Model`, with diagnostics (never exceptions).

Names are global (one namespace) and resolved after the whole file is read. Checks
(issue #2): undefined and duplicate names, process arity, channel field counts and types,
assignments to undeclared cells, two writes to one cell in one block, non-constant or
empty ranges, constants out of a declared range, unguarded recursion.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from fito.diagnostics import Diagnostic, Span, error
from fito.lang import ast as A
from fito.lang.consteval import ConstError, NotConstant, evaluate
from fito.lang.values import BOOL, INT, BoolT, EnumT, IntRange, IntT, SetT, ValueType, is_finite

CRASH = "crash"


@dataclass(frozen=True, slots=True)
class Cell:
    """A persistence-domain cell (or an array of them)."""

    name: str
    indices: tuple[ValueType, ...]
    type: ValueType
    durable: bool
    init: tuple[int, ...]  # one value per element, row-major over the indices
    decl: A.DomainDecl | None


@dataclass(frozen=True, slots=True)
class Channel:
    name: str
    fields: tuple[ValueType, ...]


@dataclass(frozen=True, slots=True)
class Model:
    """A resolved spec: everything the type checker and the model checker need."""

    spec: A.Spec
    consts: Mapping[str, tuple[ValueType, int]]
    types: Mapping[str, ValueType]
    members: Mapping[str, tuple[EnumT, int]]
    channels: Mapping[str, Channel]
    cells: Mapping[str, Cell]
    processes: Mapping[str, A.ProcessDecl]
    param_types: Mapping[str, tuple[ValueType, ...]]
    system: A.Proc | None
    assertions: tuple[A.AssertDecl, ...]
    pipelines: tuple[A.PipelineDecl, ...]


@dataclass(slots=True)
class _Globals:
    decls: dict[str, tuple[str, object, Span]] = field(default_factory=dict)  # name -> (kind, decl, span)


class Resolver:
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
        self._evaluating: list[str] = []
        self._type_cache: dict[str, ValueType | None] = {}

    # ------------------------------------------------------------------ helpers
    def err(self, code: str, message: str, span: Span, hint: str | None = None,
            notes: tuple[str, ...] = ()) -> None:
        self.diagnostics.append(error(code, message, span, hint=hint, notes=notes))

    def suggest(self, name: str, kind: str | None = None) -> str | None:
        """`did you mean 'x'?` for a misspelt name (of that kind, when given)."""
        import difflib

        pool = [n for n, entry in self.names.items() if kind is None or entry[0] == kind]
        close = difflib.get_close_matches(name, pool, n=1, cutoff=0.75)
        return f"did you mean '{close[0]}'?" if close else None

    def _declare(self, name: str, kind: str, decl: object, span: Span) -> None:
        if name in self.names:
            prev = self.names[name][2]
            self.diagnostics.append(error(
                "R002", f"'{name}' is already declared (line {prev.line})", span,
                notes=(f"first declared at line {prev.line}, column {prev.column}",)))
            return
        self.names[name] = (kind, decl, span)

    # ------------------------------------------------------------------ entry point
    def run(self) -> Model:
        system: A.Proc | None = None
        assertions: list[A.AssertDecl] = []
        pipelines: list[A.PipelineDecl] = []
        for d in self.spec.decls:
            self._collect(d)
        if CRASH not in self.names:
            self.channels[CRASH] = Channel(CRASH, ())
        for name, (kind, decl, span) in list(self.names.items()):
            self._define(name, kind, decl)
        systems = [d for d in self.spec.decls if isinstance(d, A.SystemDecl)]
        for extra in systems[1:]:
            self.err("R002", "a second `system` declaration", extra.span,
                     hint="a spec has one system process")
        for d in self.spec.decls:
            if isinstance(d, A.ProcessDecl):
                self._check_process_decl(d)
            elif isinstance(d, A.SystemDecl):
                self.check_proc(d.proc, {})
                system = system or d.proc
            elif isinstance(d, A.AssertDecl):
                self._check_assertion(d, systems)
                assertions.append(d)
            elif isinstance(d, A.PipelineDecl):
                pipelines.append(d)
        self._check_guarded_recursion()
        return Model(self.spec, self.consts, self.types, self.members, self.channels, self.cells,
                     self.processes, self.param_types, system, tuple(assertions), tuple(pipelines))

    def _collect(self, d: A.Decl) -> None:
        if isinstance(d, A.ConstDecl):
            self._declare(d.name, "const", d, d.name_span)
        elif isinstance(d, A.TypeDecl):
            self._declare(d.name, "type", d, d.name_span)
            if _is_enum_literal(d.rhs, self.names):
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

    def _define(self, name: str, kind: str, decl: object) -> None:
        if kind == "const":
            self.const_value(name)
        elif kind == "type":
            self.named_type(name)
        elif kind == "channel":
            assert isinstance(decl, A.ChannelDecl)
            if name not in self.channels:
                fields = tuple(self._finite_type(f, "a channel field") for f in decl.fields)
                self.channels[name] = Channel(name, tuple(f or INT for f in fields))
        elif kind == "cell":
            assert isinstance(decl, A.DomainDecl)
            self._define_cell(decl)
        elif kind == "process":
            assert isinstance(decl, A.ProcessDecl)
            if name not in self.param_types:
                types = tuple(self._finite_type(p.type, "a parameter") for p in decl.params)
                self.param_types[name] = tuple(t or INT for t in types)

    # ------------------------------------------------------------------ constants and types
    def const_value(self, name: str) -> tuple[ValueType, int] | None:
        if name in self.consts:
            return self.consts[name]
        kind, decl, span = self.names[name]
        if kind == "member":
            return None
        assert isinstance(decl, A.ConstDecl)
        if name in self._evaluating:
            self.err("R006", f"constant '{name}' depends on itself", span)
            return None
        self._evaluating.append(name)
        try:
            value = self.const_eval(decl.value)
            vtype = self.infer(decl.value, {})
        finally:
            self._evaluating.pop()
        if value is None:
            return None
        if decl.type is not None:
            declared = self.resolve_type(decl.type)
            if declared is not None and not declared.contains(value):
                self.err("T008", f"constant '{name}' = {value} is outside its declared type "
                         f"{_show_type(declared)}", decl.value.span)
            vtype = declared or vtype
        result = (vtype or INT, value)
        self.consts[name] = result
        return result

    def const_eval(self, e: A.Expr, bound: Mapping[str, int] | None = None,
                   what: str = "a constant") -> int | None:
        """The value of a constant expression, or None with a diagnostic."""
        try:
            return evaluate(e, self._const_lookup, self._domain_values, bound)
        except NotConstant as exc:
            self.err("T006", f"{what} must be a constant expression", exc.span,
                     hint="only constants, enumeration members and literals may appear here")
        except ConstError as exc:
            self.err("T009", exc.message, exc.span)
        return None

    def _const_lookup(self, name: str, span: Span) -> int:
        entry = self.names.get(name)
        if entry is None:
            self.err("R001", f"'{name}' is not defined", span)
            raise NotConstant(span)
        if entry[0] == "member":
            return self.members_of(name)[1]
        if entry[0] == "const":
            got = self.const_value(name)
            if got is None:
                raise NotConstant(span)
            return got[1]
        raise NotConstant(span)

    def members_of(self, name: str) -> tuple[EnumT, int]:
        if name not in self.members:
            decl = self.names[name][1]
            assert isinstance(decl, A.TypeDecl)
            self.named_type(decl.name)
        return self.members[name]

    def _domain_values(self, t: A.TypeExpr) -> tuple[int, ...]:
        vt = self.resolve_type(t)
        if vt is None or not is_finite(vt):
            raise NotConstant(t.span)
        return vt.values()

    def named_type(self, name: str) -> ValueType | None:
        if name in self._type_cache:
            return self._type_cache[name]
        self._type_cache[name] = None  # guards against cycles
        decl = self.names[name][1]
        assert isinstance(decl, A.TypeDecl)
        rhs = decl.rhs
        result: ValueType | None
        if _is_enum_literal(rhs, self.names, own=decl):
            members = tuple(item.id for item in rhs.items)  # type: ignore[union-attr]
            result = EnumT(name, members)
            for i, m in enumerate(members):
                self.members[m] = (result, i)
        else:
            result = self.resolve_type(rhs)
        self._type_cache[name] = result
        if result is not None:
            self.types[name] = result
        return result

    def resolve_type(self, t: A.TypeExpr) -> ValueType | None:
        if isinstance(t, A.BoolType):
            return BOOL
        if isinstance(t, A.IntType):
            return INT
        if isinstance(t, A.TypeName):
            entry = self.names.get(t.name)
            if entry is None:
                self.err("R001", f"type '{t.name}' is not defined", t.span)
                return None
            if entry[0] != "type":
                self.err("R004", f"'{t.name}' is a {_kind_word(entry[0])}, not a type", t.span)
                return None
            return self.named_type(t.name)
        if isinstance(t, A.RangeType):
            lo = self.const_eval(t.lo, what="a range bound")
            hi = self.const_eval(t.hi, what="a range bound")
            if lo is None or hi is None:
                return None
            if hi < lo:
                self.err("T007", f"the range {lo}..{hi} is empty", t.span)
                return None
            return IntRange(lo, hi)
        return self._set_type(t)

    def _set_type(self, t: A.SetType) -> ValueType | None:
        values: list[int] = []
        kinds: list[ValueType] = []
        for item in t.items:
            v = self.const_eval(item, what="a set element")
            k = self.infer(item, {})
            if v is None or k is None:
                return None
            values.append(v)
            kinds.append(k)
        if not values:
            self.err("T007", "the set is empty", t.span)
            return None
        first = kinds[0]
        for k, item in zip(kinds, t.items):
            if k.kind() != first.kind():
                self.err("T001", f"set elements mix {first.kind()} and {k.kind()}", item.span)
                return None
        elem: ValueType = first if isinstance(first, (EnumT, BoolT)) else INT
        return SetT(elem, tuple(sorted(set(values))))

    def _finite_type(self, t: A.TypeExpr, what: str) -> ValueType | None:
        vt = self.resolve_type(t)
        if vt is not None and not is_finite(vt):
            self.err("T006", f"{what} needs a finite type (a range, an enumeration or Bool)", t.span,
                     hint="write a range such as 0..10")
            return None
        return vt

    # ------------------------------------------------------------------ cells
    def _define_cell(self, d: A.DomainDecl) -> None:
        index_types = [self._finite_type(p.type, "an array index") for p in d.indices]
        vtype = self._finite_type(d.type, "a cell")
        seen: set[str] = set()
        for p in d.indices:
            if p.name in seen:
                self.err("R002", f"index name '{p.name}' is used twice", p.span)
            seen.add(p.name)
        if vtype is None or any(t is None for t in index_types):
            self.cells[d.name] = Cell(d.name, tuple(t or IntRange(0, 0) for t in index_types),
                                      vtype or IntRange(0, 0), d.durable, (0,), d)
            return
        scope = {p.name: t for p, t in zip(d.indices, index_types) if t is not None}
        kind = self.infer(d.init, scope)
        if kind is not None and kind.kind() != vtype.kind():
            self.err("T001", f"initial value of '{d.name}' is {kind.kind()}, the cell holds {vtype.kind()}",
                     d.init.span)
        init = self._cell_init(d, [t for t in index_types if t is not None], vtype)
        self.cells[d.name] = Cell(d.name, tuple(index_types), vtype, d.durable, init, d)  # type: ignore[arg-type]

    def _cell_init(self, d: A.DomainDecl, index_types: list[ValueType], vtype: ValueType) -> tuple[int, ...]:
        import itertools

        values: list[int] = []
        for combo in itertools.product(*(t.values() for t in index_types)):
            bound = {p.name: v for p, v in zip(d.indices, combo)}
            v = self.const_eval(d.init, bound, what="an initial value")
            if v is None:
                return tuple(0 for _ in range(_count(index_types)))
            if not vtype.contains(v):
                self.err("T008", f"initial value {v} of '{d.name}' is outside {_show_type(vtype)}",
                         d.init.span)
                return tuple(0 for _ in range(_count(index_types)))
            values.append(v)
        return tuple(values)

    # ------------------------------------------------------------------ expressions
    def infer(self, e: A.Expr, scope: Mapping[str, ValueType]) -> ValueType | None:
        """The type of e (None after an error, which has been reported)."""
        from fito.lang.typing import infer

        return infer(self, e, scope)

    # ------------------------------------------------------------------ processes
    def _check_process_decl(self, d: A.ProcessDecl) -> None:
        if self.processes.get(d.name) is not d:
            return
        scope: dict[str, ValueType] = {}
        for p, t in zip(d.params, self.param_types.get(d.name, ())):
            if p.name in scope:
                self.err("R002", f"parameter '{p.name}' is declared twice", p.span)
            scope[p.name] = t
        self.check_proc(d.body, scope)

    def check_proc(self, p: A.Proc, scope: Mapping[str, ValueType]) -> None:
        from fito.lang.static import check_proc

        check_proc(self, p, scope)

    def _check_assertion(self, d: A.AssertDecl, systems: list[A.SystemDecl]) -> None:
        if d.proc is None and not systems:
            self.err("R005", "this assertion names no process and the spec has no `system`", d.span,
                     hint="add `system Name` or name the process in the assertion")
        if d.proc is not None:
            self.check_proc(d.proc, {})
        if d.spec is not None:
            self.check_proc(d.spec, {})
        if d.expr is not None:
            t = self.infer(d.expr, {})
            if t is not None and not isinstance(t, BoolT):
                self.err("T001", f"a property must be Bool, this is {t.kind()}", d.expr.span)

    def _check_guarded_recursion(self) -> None:
        from fito.lang.static import unguarded_cycles

        for name, span in unguarded_cycles(self.processes):
            self.err("T010", f"process '{name}' can recurse without performing an event", span,
                     hint="put a prefix `a -> ...` before the recursive call")


def resolve(spec: A.Spec) -> tuple[Model, tuple[Diagnostic, ...]]:
    """Resolve names and run the static checks."""
    r = Resolver(spec)
    try:
        model = r.run()
    except RecursionError:  # a pathological nesting the iterative walkers do not cover
        r.err("P005", "the spec nests too deeply to be checked", spec.span,
              hint="split deeply nested terms into named constants or processes")
        model = Model(spec, r.consts, r.types, r.members, r.channels, r.cells, r.processes,
                      r.param_types, None, (), ())
    return model, tuple(r.diagnostics)


def _is_enum_literal(t: A.TypeExpr, names: Mapping[str, tuple[str, object, Span]],
                     own: object | None = None) -> bool:
    """`{a, b}` of plain names that are not already something else declares an enumeration."""
    if not isinstance(t, A.SetType) or not t.items:
        return False
    for item in t.items:
        if not isinstance(item, A.Name):
            return False
        entry = names.get(item.id)
        if entry is not None and not (entry[0] == "member" and (own is None or entry[1] is own)):
            return False
    return True


def _count(types: list[ValueType]) -> int:
    n = 1
    for t in types:
        n *= len(t.values())
    return n


def _show_type(t: ValueType) -> str:
    if isinstance(t, IntRange):
        return f"{t.lo}..{t.hi}"
    if isinstance(t, EnumT):
        return t.name
    if isinstance(t, SetT):
        return "{" + ", ".join(t.show(v) for v in t.members) + "}"
    if isinstance(t, IntT):
        return "Int"
    return "Bool"


def _kind_word(kind: str) -> str:
    return {"const": "constant", "member": "enumeration member", "cell": "domain cell"}.get(kind, kind)


show_type = _show_type
kind_word = _kind_word
