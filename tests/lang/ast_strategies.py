"""Hypothesis strategies for random ASTs that the grammar can express (for printer tests).

They build the dataclasses directly: integer literals are >= 0 (a minus sign is `Unary`),
names are never keywords, types in channel fields and binders are the ones the grammar
admits there (no `Int`), assignment targets are cells or cells of arrays.
"""

from __future__ import annotations

from hypothesis import strategies as st

from fito.lang import nodes as A

NAMES = ("a", "b", "c", "x", "y", "P", "Q", "Dom", "gpu", "x'", "_t", "epoch2", "K9")
names = st.sampled_from(NAMES)
ints = st.integers(min_value=0, max_value=10**18 - 1)
ARITH = ("+", "-", "*", "/", "%")
COMPARE = ("==", "!=", "<", "<=", ">", ">=")
LOGIC = ("and", "or", "=>")


def _exprs() -> st.SearchStrategy[A.Expr]:
    leaves = st.one_of(
        st.builds(A.IntLit, ints), st.builds(A.BoolLit, st.booleans()), st.builds(A.Name, names)
    )

    def extend(e: st.SearchStrategy[A.Expr]) -> st.SearchStrategy[A.Expr]:
        return st.one_of(
            st.builds(A.Binary, st.sampled_from(ARITH + COMPARE + LOGIC), e, e),
            st.builds(A.Unary, st.sampled_from(("-", "not")), e),
            st.builds(A.Index, e, e),
            st.builds(A.Call, names, st.lists(e, max_size=3).map(tuple)),
            st.builds(A.IfExpr, e, e, e),
            st.builds(A.Quant, st.sampled_from(("forall", "exists")), names, in_sets(e), e),
            st.builds(A.Let, names, e, e),
        )

    return st.recursive(leaves, extend, max_leaves=12)


def in_sets(e: st.SearchStrategy[A.Expr]) -> st.SearchStrategy[A.TypeExpr]:
    """Types allowed after `x:` in binders and inputs."""
    return st.one_of(
        st.builds(A.TypeName, names),
        st.builds(A.BoolType),
        st.builds(A.SetType, st.lists(e, min_size=1, max_size=3).map(tuple)),
        st.builds(A.RangeType, e, e),
    )


exprs = _exprs()
small_exprs = st.deferred(lambda: exprs)
set_types = in_sets(exprs)
chan_types = set_types
type_refs = st.one_of(set_types, st.builds(A.IntType))
value_fields = st.one_of(
    st.builds(A.DotField, st.deferred(lambda: exprs)),
    st.builds(A.OutField, st.deferred(lambda: exprs)),
)
set_items = st.builds(A.Event, names, st.lists(value_fields, max_size=2).map(tuple))
indexed_events = st.lists(
    st.builds(A.DotField, st.deferred(lambda: exprs)), min_size=1, max_size=2
).flatmap(
    lambda idx: st.builds(
        A.Event,
        names,
        st.lists(value_fields, max_size=1).map(lambda rest: tuple(idx) + tuple(rest)),
        indexed=st.just(len(idx)),
    )
)
event_sets = st.one_of(
    st.builds(A.EventSet, st.just("channels"), st.lists(set_items, max_size=3).map(tuple)),
    st.builds(A.EventSet, st.just("events"), st.lists(set_items, max_size=3).map(tuple)),
    st.builds(A.EventSet, st.just("all")),
)
channel_sets = event_sets


def _target() -> st.SearchStrategy[A.Expr]:
    return st.recursive(
        st.builds(A.Name, names), lambda t: st.builds(A.Index, t, exprs), max_leaves=3
    )


fields = st.one_of(
    st.builds(A.DotField, exprs),
    st.builds(A.OutField, exprs),
    st.builds(A.InField, names, st.none() | set_types),
)
events = st.one_of(
    st.builds(A.Event, names, st.lists(fields, max_size=3).map(tuple)),
    st.deferred(lambda: indexed_events),
)
_assign = st.builds(A.Assign, _target(), exprs)
assignments = st.recursive(
    _assign, lambda a: st.builds(A.AssignLoop, names, set_types, a), max_leaves=2
)
assigns = st.lists(assignments, max_size=3).map(tuple)
statements = st.recursive(
    st.one_of(assignments, st.builds(A.BlockAssert, exprs)),
    lambda s: st.builds(
        A.BlockIf, exprs, st.lists(s, max_size=2).map(tuple), st.lists(s, max_size=2).map(tuple)
    ),
    max_leaves=4,
)
renames = st.lists(st.builds(A.RenamePair, set_items, set_items), min_size=1, max_size=2).map(tuple)


def _procs() -> st.SearchStrategy[A.Proc]:
    leaves = st.one_of(
        st.builds(A.Stop),
        st.builds(A.Skip),
        st.builds(A.ProcRef, names, st.lists(exprs, max_size=2).map(tuple)),
    )

    def extend(p: st.SearchStrategy[A.Proc]) -> st.SearchStrategy[A.Proc]:
        return st.one_of(
            st.builds(A.Prefix, st.none() | events, assigns, p),
            st.builds(A.Guard, exprs, p),
            st.builds(A.ProcBinary, st.sampled_from(("[]", "|~|", ";", "/\\", "|||", "[>")), p, p),
            st.builds(A.Parallel, p, channel_sets, p),
            st.builds(A.Hide, p, channel_sets),
            st.builds(A.ProcIf, exprs, p, p),
            st.builds(A.Replicated, st.sampled_from(("[]", "|~|", "|||")), names, set_types, p),
            st.builds(
                A.Replicated, st.sampled_from(("[||]", "||")), names, set_types, p, event_sets
            ),
            st.builds(A.AssertStep, exprs, p),
            st.builds(A.Atomic, st.lists(statements, max_size=3).map(tuple), p),
            st.builds(A.Select, st.lists(p, min_size=1, max_size=3).map(tuple), st.none() | p),
            st.builds(A.AlphaParallel, p, event_sets, event_sets, p),
            st.builds(A.Rename, p, renames),
        )

    return st.recursive(leaves, extend, max_leaves=8)


procs = _procs()
plain_params = st.lists(st.builds(A.Param, names, type_refs), max_size=2).map(tuple)
params = st.lists(
    st.one_of(
        st.builds(A.Param, names, type_refs),
        st.builds(A.Param, names, type_refs, var=st.just(True)),
    ),
    max_size=2,
).map(tuple)
local_vars = st.lists(
    st.builds(A.LocalVar, names, plain_params, type_refs, exprs, st.booleans()), max_size=2
).map(tuple)


def _asserts() -> st.SearchStrategy[A.AssertDecl]:
    maybe = st.none() | procs
    return st.one_of(
        st.builds(A.AssertDecl, st.just("deadlock"), maybe),
        st.builds(A.AssertDecl, st.sampled_from(("always", "eventually", "reaches")), maybe, exprs),
        st.builds(A.AssertDecl, st.just("refines"), procs, st.none(), procs),
    )


stmts = st.one_of(
    st.builds(A.EpochStmt, st.lists(names, min_size=1, max_size=3).map(tuple)),
    st.builds(A.RequireStmt, exprs),
    st.builds(A.LetStmt, names, exprs, st.none() | exprs),
    st.builds(A.CallStmt, names, st.lists(exprs, max_size=3).map(tuple)),
)

decls = st.one_of(
    st.builds(A.ConstDecl, names, st.none() | type_refs, exprs),
    st.builds(A.TypeDecl, names, type_refs),
    st.builds(
        A.ChannelDecl,
        st.lists(names, min_size=1, max_size=3).map(tuple),
        st.lists(chan_types, max_size=3).map(tuple),
    ),
    st.builds(
        A.ChannelDecl,
        st.lists(names, min_size=1, max_size=3).map(tuple),
        st.lists(chan_types, max_size=3).map(tuple),
        buffer=exprs,
        durable=st.booleans(),
    ),
    st.builds(A.DomainDecl, names, plain_params, type_refs, exprs, st.booleans()),
    st.builds(A.ProcessDecl, names, params, procs, locals=local_vars),
    st.builds(A.FunDecl, names, params, type_refs, exprs),
    st.builds(A.SystemDecl, procs),
    _asserts(),
    st.builds(A.PipelineDecl, names, st.lists(stmts, max_size=4).map(tuple)),
)
specs = st.builds(A.Spec, st.lists(decls, max_size=5).map(tuple))
