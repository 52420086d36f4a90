"""Which `if` tests mean "only rank 0 (the main process) runs this".

`if rank == 0:`, `if args.local_rank in [-1, 0]:`, `if dist.get_rank() == 0:`,
`if master_process:`, `if trainer.is_global_zero:`, `if not rank:`, and their negations
(`if rank != 0: return`), also through a variable (`is_main = rank == 0`) and combined with a
non-distributed run (`if not args.distributed or rank == 0:`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from fito.lint import vocab
from fito.lint.index import dotted

RANK0, NOT_RANK0, SINGLE, SUBSET = "rank0", "not-rank0", "single-process", "subset"
FlagsOf = Callable[[str], frozenset[str]]


def rank_test(test: ast.expr, flags_of: FlagsOf) -> str | None:
    """RANK0 when the test holds on rank 0 only, NOT_RANK0 for the converse, else None."""
    if isinstance(test, ast.BoolOp):
        kinds = [
            rank_test(v, flags_of) or (SINGLE if _single_process(v) else None) for v in test.values
        ]
        if isinstance(test.op, ast.And):
            return RANK0 if RANK0 in kinds else None
        if RANK0 in kinds and all(k in (RANK0, SINGLE) for k in kinds):
            return RANK0
        return NOT_RANK0 if NOT_RANK0 in kinds and all(k == NOT_RANK0 for k in kinds) else None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        # `not not ... x`: the chain is unwound once (its rank mention is x's), not walked
        # again at every `not` (quadratic in a chain of 5,000)
        nots = 0
        inner_test: ast.expr = test
        while isinstance(inner_test, ast.UnaryOp) and isinstance(inner_test.op, ast.Not):
            nots, inner_test = nots + 1, inner_test.operand
        inner = rank_test(inner_test, flags_of)
        mentions: bool | None = None
        for _ in range(nots):
            if inner == RANK0:
                inner = NOT_RANK0
            elif inner == NOT_RANK0:
                inner = RANK0
            else:
                if mentions is None:
                    mentions = _mentions_rank(inner_test)
                inner = RANK0 if mentions else None
        return inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _compare(test.left, test.ops[0], test.comparators[0])
    name = dotted(test)
    if name is None:
        return None
    if vocab.is_main_process_name(name):
        return RANK0
    flags = flags_of(name)
    if RANK0 in flags:
        return RANK0
    return NOT_RANK0 if NOT_RANK0 in flags else None


_FLIP = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}


def _compare(left: ast.expr, op: ast.cmpop, right: ast.expr) -> str | None:
    if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
        left, right = right, left
        op = _FLIP.get(type(op), type(op))()
    if isinstance(right, (ast.Tuple, ast.List, ast.Set)) and isinstance(op, (ast.In, ast.NotIn)):
        consts = [e.value for e in right.elts if isinstance(e, ast.Constant)]
        if (
            0 in consts
            and all(isinstance(c, int) and c <= 0 for c in consts)
            and _mentions_rank(left)
        ):
            return RANK0 if isinstance(op, ast.In) else NOT_RANK0
        return None
    if not isinstance(right, ast.Constant):
        return None
    c = right.value
    if vocab.is_main_process_name(dotted(left) or "") and c is True:
        return RANK0 if isinstance(op, (ast.Eq, ast.Is)) else NOT_RANK0
    if not _mentions_rank(left) or isinstance(c, bool) or not isinstance(c, int):
        return None
    if _group_rank(left):  # the rank in one parallel group: a subset of the ranks
        return SUBSET if (type(op), c) in ((ast.Eq, 0), (ast.Is, 0)) else None
    table = {
        (ast.Eq, 0): RANK0,
        (ast.Is, 0): RANK0,
        (ast.LtE, 0): RANK0,
        (ast.Lt, 1): RANK0,
        (ast.NotEq, 0): NOT_RANK0,
        (ast.IsNot, 0): NOT_RANK0,
        (ast.Gt, 0): NOT_RANK0,
        (ast.GtE, 1): NOT_RANK0,
    }
    return table.get((type(op), c))


#: a rank within a parallel group (data, tensor, pipeline, model, expert, context parallel):
#: `dp_rank == 0` holds on one rank of each group, not on rank 0 alone
_GROUP_WORDS = frozenset(
    (
        "dp",
        "tp",
        "pp",
        "mp",
        "ep",
        "cp",
        "data",
        "tensor",
        "pipeline",
        "model",
        "expert",
        "context",
        "parallel",
        "shard",
        "replica",
        "node",
    )
)


def _group_rank(expr: ast.expr) -> bool:
    for n in ast.walk(expr):
        if isinstance(n, (ast.Name, ast.Attribute)):
            toks = vocab.tokens(dotted(n) or "")
            if "rank" in toks and any(t in _GROUP_WORDS for t in toks):
                return True
    return False


def _mentions_rank(expr: ast.expr) -> bool:
    for n in ast.walk(expr):
        if isinstance(n, (ast.Name, ast.Attribute)) and vocab.is_rank_name(dotted(n) or ""):
            return True
        if isinstance(n, ast.Constant) and n.value in ("RANK", "LOCAL_RANK", "SLURM_PROCID"):
            return True
    return False


def _single_process(test: ast.expr) -> bool:
    """`not args.distributed`, `world_size == 1`, `local_rank == -1`, `not dist.is_initialized()`
    (a run without ranks)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        name = dotted(test.operand) or ""
        toks = vocab.tokens(name)
        return any(t in toks for t in ("distributed", "ddp", "multiprocessing", "initialized"))
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.comparators[0], ast.Constant)
    ):
        name = dotted(test.left) or ""
        c = test.comparators[0].value
        if "world" in vocab.tokens(name):
            return (isinstance(test.ops[0], ast.Eq) and c == 1) or (
                isinstance(test.ops[0], ast.LtE) and c == 1
            )
        return vocab.is_rank_name(name) and isinstance(test.ops[0], ast.Eq) and c == -1
    return False


def terminates(body: list[ast.stmt]) -> bool:
    """The block always leaves (return, raise, continue, break): what follows runs only
    otherwise."""
    return bool(body) and (
        isinstance(body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break)) or _exits(body[-1])
    )


_EXISTS = frozenset(
    ("exists", "isfile", "isdir", "lexists", "is_file", "is_dir", "file_exists", "path_exists")
)
_WARN = frozenset(
    ("print", "warn", "warning", "warnings", "info", "debug", "error", "log", "exception")
)


def is_existence_test(test: ast.expr) -> bool:
    """`os.path.isfile(p)`, `Path(p).exists()`, `"optimizer" in ckpt`,
    `ckpt.get("step") is not None`: a test of whether a file or an entry is there."""
    for n in ast.walk(test):
        if isinstance(n, ast.Call):
            name = dotted(n.func) or ""
            if name.rsplit(".", 1)[-1] in _EXISTS:
                return True
        elif isinstance(n, ast.Compare) and len(n.ops) == 1:
            op, right = n.ops[0], n.comparators[0]
            if (
                isinstance(op, (ast.In, ast.NotIn))
                and isinstance(n.left, ast.Constant)
                and isinstance(n.left.value, str)
                and not isinstance(right, (ast.Tuple, ast.List, ast.Set, ast.Constant))
            ):
                return True
            if (
                isinstance(op, (ast.Is, ast.IsNot))
                and isinstance(right, ast.Constant)
                and right.value is None
                and isinstance(n.left, ast.Call)
                and isinstance(n.left.func, ast.Attribute)
                and n.left.func.attr == "get"
            ):
                return True
    return False


def warns(body: list[ast.stmt]) -> bool:
    """The block prints, logs or warns (and so goes on after saying so)."""
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call):
                name = dotted(n.func) or ""
                if name.rsplit(".", 1)[-1] in _WARN:
                    return True
    return False


def reraises(body: list[ast.stmt]) -> bool:
    """An exception handler that does not swallow: it ends by raising (or exiting)."""
    return bool(body) and (isinstance(body[-1], ast.Raise) or _exits(body[-1]))


_EXIT_CALLS = frozenset(("sys.exit", "exit", "quit", "os._exit", "os.abort"))


def _exits(stmt: ast.stmt) -> bool:
    """`sys.exit(1)`, `os._exit(2)`: the process ends here."""
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and (dotted(stmt.value.func) or "") in _EXIT_CALLS
    )


def is_rank0_decorator(node: ast.expr) -> bool:
    """`@rank_zero_only`, `@master_only`, `@main_process_only`, `@on_main_process`."""
    toks = vocab.tokens(dotted(node) or "")
    return (
        ("rank" in toks and "zero" in toks)
        or "master" in toks
        or ("main" in toks and "process" in toks)
    )
