"""Constants, types, channels, parameters and cells of a spec (a mixin of `Resolver`), and
how messages name the kinds of declarations.

Each definition is computed on first use (declarations may come in any order), reported
once when wrong, and remembered as failed (`Resolver.failed`) so that uses of a bad name
add no diagnostics of their own.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING

from fito import budget
from fito.diagnostics import Diagnostic, Span
from fito.lang import nodes as A
from fito.lang.printer.canonical import print_type
from fito.lang.resolve.consteval import ConstError, NotConstant, evaluate
from fito.lang.resolve.costs import MAX_VALUES
from fito.lang.resolve.model import (
    BOOL,
    INT,
    BoolT,
    Cell,
    Channel,
    EnumT,
    IntRange,
    IntT,
    SetT,
    ValueType,
    is_finite,
    show_type,
    size,
)


class Reported(NotConstant):
    """Not a constant because of an error already reported (nothing more to say)."""


class DeclarationRules:
    """Definitions of constants, types, channels, process parameters and cells; expects the
    attributes and helpers of `Resolver`."""

    names: dict[str, tuple[str, object, Span]]
    consts: dict[str, tuple[ValueType, int]]
    types: dict[str, ValueType]
    members: dict[str, tuple[EnumT, int]]
    channels: dict[str, Channel]
    cells: dict[str, Cell]
    param_types: dict[str, tuple[ValueType, ...]]
    failed: set[str]
    enum_decls: set[int]
    diagnostics: list[Diagnostic]
    _evaluating: dict[str, None]  # the names being evaluated, in order (a set: O(1) `in`)
    _type_cache: dict[str, ValueType | None]

    def err(
        self,
        code: str,
        message: str,
        span: Span,
        hint: str | None = None,
        notes: tuple[str, ...] = (),
    ) -> None:
        raise NotImplementedError

    def suggest(self, name: str, kind: str | None = None) -> str | None:
        raise NotImplementedError

    def infer(self, e: A.Expr, scope: Mapping[str, ValueType]) -> ValueType | None:
        raise NotImplementedError

    if TYPE_CHECKING:  # provided by ActivationRules

        def buffer_capacity(self, name: str, decl: A.ChannelDecl) -> int: ...

        def function_sig(self, name: str) -> object: ...

    def define(self, name: str, kind: str, decl: object) -> None:
        """Compute the definition of one declared name (a no-op for kinds defined on use)."""
        if kind == "const":
            self.const_value(name)
        elif kind == "type":
            self.named_type(name)
        elif kind == "channel" and name not in self.channels:
            assert isinstance(decl, A.ChannelDecl)
            indices = tuple(self.finite_type(t, "a channel index") for t in decl.indices)
            fields = tuple(self.finite_type(f, "a channel field") for f in decl.fields)
            capacity = self.buffer_capacity(name, decl)
            self.channels[name] = Channel(
                name,
                tuple(f or INT for f in indices + fields),
                capacity,
                decl.durable,
                len(indices),
                tuple(print_type(t) for t in decl.indices + decl.fields),
            )
        elif kind == "cell":
            assert isinstance(decl, A.DomainDecl)
            self._define_cell(decl)
        elif kind == "function":
            self.function_sig(name)
        elif kind == "process" and name not in self.param_types:
            assert isinstance(decl, A.ProcessDecl)
            types = tuple(self.finite_type(p.type, "a parameter") for p in decl.params)
            self.param_types[name] = tuple(t or INT for t in types)

    # ------------------------------------------------------------------ constants
    def const_value(self, name: str) -> tuple[ValueType, int] | None:
        """The type and value of a constant (None if its definition is wrong)."""
        if name in self.consts:
            return self.consts[name]
        if name in self.failed:
            return None
        kind, decl, span = self.names[name]
        if kind == "member":
            return None
        assert isinstance(decl, A.ConstDecl)
        if name in self._evaluating:
            order = list(self._evaluating)
            cycle = order[order.index(name) :]
            self.err(
                "R006",
                f"constant '{name}' depends on itself",
                span,
                notes=("through " + " -> ".join(cycle + [name]),) if len(cycle) > 1 else (),
            )
            self.failed.update(cycle)
            return None
        self._evaluating[name] = None
        try:
            reported = len(self.diagnostics)
            vtype = self.infer(decl.value, {})
            clean = vtype is not None and len(self.diagnostics) == reported
            value = self.const_eval(decl.value) if clean else None  # no second error
        finally:
            self._evaluating.pop(name, None)
        if value is None or name in self.failed:
            self.failed.add(name)
            return None
        if decl.type is not None:
            declared = self.resolve_type(decl.type)
            if declared is not None and not declared.contains(value):
                self.err(
                    "T008",
                    f"constant '{name}' = {value} is outside its declared type "
                    f"{show_type(declared)}",
                    decl.value.span,
                )
            vtype = declared or vtype
        result = (vtype or INT, value)
        self.consts[name] = result
        return result

    def const_eval(
        self, e: A.Expr, bound: Mapping[str, int] | None = None, what: str = "a constant"
    ) -> int | None:
        """The value of a constant expression, or None with a diagnostic."""
        try:
            return evaluate(e, self._const_lookup, self._domain_values, bound)
        except Reported:
            return None
        except NotConstant as exc:
            self.err(
                "T006",
                f"{what} must be a constant expression",
                exc.span,
                hint="only constants, enumeration members and literals may appear here",
            )
        except ConstError as exc:
            self.err("T009", exc.message, exc.span)
        return None

    def try_const(self, e: A.Expr, scope: Mapping[str, ValueType]) -> int | None:
        """The value of e if it is a constant expression (no cells, no names bound in scope),
        else None; nothing is reported."""
        if isinstance(e, A.IntLit):
            return e.value
        if isinstance(e, A.Name) and (
            e.id in scope or self.names.get(e.id, ("",))[0] not in ("const", "member")
        ):
            return None

        def lookup(name: str, span: Span) -> int:
            if name in scope:
                raise NotConstant(span)
            entry = self.names.get(name)
            if entry is None or entry[0] not in ("const", "member"):
                raise NotConstant(span)
            if entry[0] == "member":
                return self.members_of(name)[1]
            got = self.const_value(name)
            if got is None:
                raise NotConstant(span)
            return got[1]

        try:
            return evaluate(e, lookup)
        except (NotConstant, ConstError):
            return None

    def _const_lookup(self, name: str, span: Span) -> int:
        entry = self.names.get(name)
        if name == A.ERROR_NAME:
            raise Reported(span)
        if entry is None:
            self.err("R001", f"'{name}' is not defined", span, hint=self.suggest(name))
            raise Reported(span)
        if entry[0] == "member":
            return self.members_of(name)[1]
        if entry[0] == "const":
            got = self.const_value(name)
            if got is None:
                raise Reported(span)
            return got[1]
        raise NotConstant(span)

    def members_of(self, name: str) -> tuple[EnumT, int]:
        """The enumeration a member belongs to, and its index."""
        if name not in self.members:
            decl = self.names[name][1]
            assert isinstance(decl, A.TypeDecl)
            if self.names.get(decl.name, ("", None))[1] is decl:
                self.named_type(decl.name)
            else:  # an enumeration whose type name is a duplicate (R002): its own members
                self._type_of(decl.name, decl)
        return self.members[name]

    def _domain_values(self, t: A.TypeExpr) -> tuple[int, ...]:
        vt = self.resolve_type(t)
        if vt is None:
            raise Reported(t.span)
        n = size(vt)
        if n is None or n > MAX_VALUES:
            self.err(
                "T006",
                "a quantifier in a constant needs a finite domain of at most "
                f"{MAX_VALUES:,} values",
                t.span,
            )
            raise Reported(t.span)
        return vt.values()

    # ------------------------------------------------------------------ types
    def named_type(self, name: str) -> ValueType | None:
        """The type a `type` declaration defines (None if wrong)."""
        if name in self._type_cache:
            got = self._type_cache[name]
            if got is None and name in self._evaluating:
                _, _, span = self.names[name]
                self.err("R007", f"type '{name}' is defined in terms of itself", span)
                del self._evaluating[name]  # report the cycle once
            return got
        self._type_cache[name] = None
        decl = self.names[name][1]
        assert isinstance(decl, A.TypeDecl)
        self._evaluating[name] = None
        try:
            result = self._type_of(name, decl)
        finally:
            self._evaluating.pop(name, None)
        self._type_cache[name] = result
        if result is not None:
            self.types[name] = result
        return result

    def _type_of(self, name: str, decl: A.TypeDecl) -> ValueType | None:
        if id(decl) not in self.enum_decls:
            return self.resolve_type(decl.rhs)
        items = decl.rhs.items  # type: ignore[union-attr]
        result = EnumT(name, tuple(item.id for item in items))  # type: ignore[union-attr]
        for i, item in enumerate(items):
            if self.names.get(item.id, ("", None))[1] is decl:
                self.members[item.id] = (result, i)
        return result

    def resolve_type(self, t: A.TypeExpr) -> ValueType | None:
        """The value type a type expression denotes (None after reporting why not)."""
        if isinstance(t, A.BoolType):
            return BOOL
        if isinstance(t, A.IntType):
            if t.lo is None:
                return INT
            lo = self.const_eval(t.lo, what="a range bound")
            return None if lo is None else IntT(lo)
        if isinstance(t, A.TypeName):
            entry = self.names.get(t.name)
            if entry is None:
                self.err(
                    "R001",
                    f"type '{t.name}' is not defined",
                    t.span,
                    hint=self.suggest(t.name, "type"),
                )
                return None
            if entry[0] != "type":
                self.err("R004", f"'{t.name}' is {a_kind(entry[0])}, not a type", t.span)
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
            reported = len(self.diagnostics)
            k = self.infer(item, {})
            clean = k is not None and len(self.diagnostics) == reported
            v = self.const_eval(item, what="a set element") if clean else None
            if v is None or k is None:
                return None
            values.append(v)
            kinds.append(k)
        first = kinds[0]
        for k, item in zip(kinds, t.items):
            if k.kind() != first.kind():
                self.err("T001", f"set elements mix {first.kind()} and {k.kind()}", item.span)
                return None
        elem: ValueType = first if isinstance(first, (EnumT, BoolT)) else INT
        return SetT(elem, tuple(sorted(set(values))))

    def finite_type(self, t: A.TypeExpr, what: str) -> ValueType | None:
        """resolve_type, with an error when the type is the unbounded Int."""
        vt = self.resolve_type(t)
        if vt is not None and not is_finite(vt):
            self.err(
                "T006",
                f"{what} needs a finite type (a range, an enumeration or Bool)",
                t.span,
                hint="write a range such as 0..10",
            )
            return None
        return vt

    # ------------------------------------------------------------------ cells
    def _define_cell(self, d: A.DomainDecl) -> None:
        index_types = [self.finite_type(p.type, "an array index") for p in d.indices]
        vtype = self.resolve_type(d.type)  # Int: unbounded, for the symbolic engine
        seen: set[str] = set()
        for p in d.indices:
            if p.name in seen:
                self.err("R002", f"index name '{p.name}' is used twice", p.span)
            seen.add(p.name)
        count = 1
        for t in index_types:
            if t is not None:
                count *= size(t) or 1
        if count > MAX_VALUES:
            self.err(
                "S002",
                f"the array '{d.name}' has {count:,} cells, more than {MAX_VALUES:,}",
                d.name_span,
            )
            index_types = [None]
        if vtype is None or any(t is None for t in index_types):
            self.failed.add(d.name)
            self.cells[d.name] = Cell(
                d.name,
                tuple(t or IntRange(0, 0) for t in index_types),
                vtype or IntRange(0, 0),
                d.durable,
                (0,),
                d,
            )
            return
        known = [t for t in index_types if t is not None]
        scope = {p.name: t for p, t in zip(d.indices, known)}
        kind = self.infer(d.init, scope)
        if kind is not None and kind.kind() != vtype.kind():
            self.err(
                "T001",
                f"initial value of '{d.name}' is {kind.kind()}, the cell holds {vtype.kind()}",
                d.init.span,
            )
        init = self._cell_init(d, known, vtype) if kind is not None else (0,) * count
        self.cells[d.name] = Cell(d.name, tuple(known), vtype, d.durable, init, d)

    def _cell_init(
        self, d: A.DomainDecl, index_types: list[ValueType], vtype: ValueType
    ) -> tuple[int, ...]:
        if d.indices and not _mentions(d.init, {p.name for p in d.indices}):
            one = self._cell_init(
                A.DomainDecl(d.name, (), d.type, d.init, d.durable, span=d.span), [], vtype
            )  # the same value in every cell: evaluate it once
            return one * _count(index_types) if len(one) == 1 else one
        values: list[int] = []
        for combo in itertools.product(*(t.values() for t in index_types)):
            budget.check()  # up to MAX_VALUES elements: the command's deadline and memory
            bound = {p.name: v for p, v in zip(d.indices, combo)}
            v = self.const_eval(d.init, bound, what="an initial value")
            if v is None or not vtype.contains(v):
                if v is not None:
                    self.err(
                        "T008",
                        f"initial value {v} of '{d.name}' is outside "
                        f"{show_type(vtype)}"
                        + (f" (at {_show_combo(d, combo, index_types)})" if combo else ""),
                        d.init.span,
                    )
                return tuple(0 for _ in range(_count(index_types)))
            values.append(v)
        return tuple(values)


def _mentions(e: A.Expr, names: set[str]) -> bool:
    """Whether e reads any of the names (without recursion)."""
    work: list[object] = [e]
    while work:
        x = work.pop()
        if isinstance(x, A.Name):
            if x.id in names:
                return True
        elif isinstance(x, tuple):
            work.extend(x)
        elif hasattr(x, "__dataclass_fields__"):
            work.extend(getattr(x, f) for f in x.__dataclass_fields__ if f != "span")
    return False


def _show_combo(d: A.DomainDecl, combo: tuple[int, ...], types: list[ValueType]) -> str:
    return ", ".join(f"{p.name} = {t.show(v)}" for p, v, t in zip(d.indices, combo, types))


def _count(types: list[ValueType]) -> int:
    n = 1
    for t in types:
        n *= len(t.values())
    return n


def a_kind(kind: str) -> str:
    """The kind with its article: `a constant`, `an enumeration member`."""
    word = kind_word(kind)
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def kind_word(kind: str) -> str:
    """How a message names a kind of declaration."""
    words = {
        "const": "constant",
        "member": "enumeration member",
        "cell": "domain cell",
        "variable": "local variable",
    }
    return words.get(kind, kind)
