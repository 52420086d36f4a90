"""An independent judge of certificates for the mutation tests: SymPy, Z3 and Python source.

It shares no code with the kernel. `holds(cert)` answers: is what the certificate asserts
true? (Not: is it a well-formed proof.) The mutation tests require the kernel to accept a
mutant only if `holds` says its assertions are true.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Any

import sympy as sp
import z3

from tests.proof.oracle_kinds import NEW_KINDS

_NUM = re.compile(r"-?\d+(/\d+)?\Z")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
TOP = {
    "format",
    "id",
    "title",
    "description",
    "model",
    "method",
    "verdict",
    "statement",
    "obligations",
    "producer",
    "sha256",
}


class Bad(Exception):
    """The certificate is malformed in a way the oracle notices."""


# ------------------------------------------------------------ Python-source evaluation
def py_source(e: Any) -> str:
    """The expression as Python source over Fractions (helpers in `_ENV`)."""
    if isinstance(e, bool):
        return repr(e)
    if isinstance(e, int):
        return f"({e})"  # ints stay ints (fast); division goes through Fraction below
    if isinstance(e, str):
        if _NUM.match(e):
            return f"F('{e}')"
        if _IDENT.match(e):
            return f"V['{e}']"
        raise Bad(f"bad leaf {e!r}")
    if not isinstance(e, list) or not e:
        raise Bad(f"bad node {e!r}")
    if e[0] == "fn":
        return f"FN({e[1]!r}, {', '.join(py_source(a) for a in e[2:])})"
    if e[0] in ("sum", "prod"):
        body = py_source(e[4])
        return (
            f"BIG({e[0]!r}, {e[1]!r}, {py_source(e[2])}, {py_source(e[3])}, (lambda V: {body}), V)"
        )
    op, args = e[0], [py_source(a) for a in e[1:]]
    infix = {
        "+": "+",
        "*": "*",
        "<": "<",
        "<=": "<=",
        ">": ">",
        ">=": ">=",
        "=": "==",
        "!=": "!=",
        "and": " and ",
        "or": " or ",
    }
    if op in infix and len(args) >= (1 if op in "+*andor" else 2):
        if op in ("<", "<=", ">", ">=", "=", "!=") and len(args) != 2:
            raise Bad("arity")
        return "(" + infix[op].join(f"({a})" for a in args) + ")"
    calls = {
        "-": "NEG" if len(args) == 1 else "SUB",
        "^": "POW",
        "/": "DIVF",
        "min": "MIN",
        "max": "MAX",
        "exp": "EXP",
        "abs": "abs",
        "floor": "FLOOR",
        "mod": "MOD",
        "div": "DIV",
        "not": "NOT",
        "implies": "IMP",
        "ite": "ITE",
    }
    if op not in calls:
        raise Bad(f"operator {op}")
    return f"{calls[op]}({', '.join(args)})"


def _pow(a, b):
    if Fraction(b).denominator != 1:
        raise Bad("fractional exponent")
    return Fraction(a) ** int(b) if b < 0 else a ** int(b)


_FUNCTIONS: dict = {}


def _fn(name: str, *args):
    """An uninterpreted function: a fixed random positive value per argument tuple."""
    key = (name, *args)
    if key not in _FUNCTIONS:
        _FUNCTIONS[key] = Fraction(
            random.Random(repr(key)).randint(1, 97), random.Random(repr(key) + "d").randint(1, 13)
        )
    return _FUNCTIONS[key]


def _exp(v):
    """exp(v) for the random-point tests: 2^v (multiplicative like exp; v must be an integer)."""
    v = Fraction(v)
    if v.denominator != 1 or abs(v) > 200:
        raise Bad("exp of a non-integer point")
    return Fraction(2) ** int(v)


def _big(op, var, lo, hi, body, env):
    lo, hi = Fraction(lo), Fraction(hi)
    if lo.denominator != 1 or hi.denominator != 1 or hi - lo > 10_000:
        raise Bad("bounds")
    acc = Fraction(0 if op == "sum" else 1)
    for v in range(int(lo), int(hi) + 1):
        x = body({**env, var: Fraction(v)})
        acc = acc + x if op == "sum" else acc * x
    return acc


_ENV = {
    "FN": _fn,
    "EXP": _exp,
    "BIG": _big,
    "MIN": lambda *a: min(a),
    "MAX": lambda *a: max(a),
    "F": Fraction,
    "DIVF": lambda a, b: Fraction(a) / b,
    "NEG": lambda a: -a,
    "SUB": lambda a, b: a - b,
    "POW": _pow,
    "FLOOR": lambda a: Fraction(a.__floor__()),
    "MOD": lambda a, b: a - b * (Fraction(a) / b).__floor__(),
    "DIV": lambda a, b: (Fraction(a) / b).__floor__(),
    "NOT": lambda a: not a,
    "IMP": lambda a, b: (not a) or b,
    "ITE": lambda c, a, b: a if c else b,
}


def evaluator(e: Any):
    """A function from an assignment dict to the value of e (Fractions and bools)."""
    code = compile(py_source(e), "<oracle>", "eval")
    return lambda env: eval(code, _ENV, {"V": env})


def symbols_of(e: Any) -> set[str]:
    if isinstance(e, str) and _IDENT.match(e):
        return {e}
    if isinstance(e, list) and e and e[0] == "fn":
        return set().union(*(symbols_of(a) for a in e[2:]))
    if isinstance(e, list) and e and e[0] in ("sum", "prod"):
        return symbols_of(e[2]) | symbols_of(e[3]) | (symbols_of(e[4]) - {e[1]})
    if isinstance(e, list):
        return set().union(*(symbols_of(a) for a in e[1:])) if e else set()
    return set()


def has_exp(e: Any) -> bool:
    return isinstance(e, list) and bool(e) and (e[0] == "exp" or any(has_exp(a) for a in e[1:]))


def _exponent_symbols(e: Any) -> set[str]:
    if isinstance(e, list) and e:
        out = symbols_of(e[2]) if e[0] == "^" and len(e) == 3 else set()
        return out.union(*(_exponent_symbols(a) for a in e[1:]))
    return set()


# ------------------------------------------------------------ random-point identity testing
def _points(
    names: set[str],
    naturals: set[str],
    rng: random.Random,
    n: int = 12,
    positive: set[str] = frozenset(),
    integers: bool = False,
):
    for _ in range(n):
        yield {
            v: Fraction(rng.randint(0, 6))
            if v in naturals
            else Fraction(rng.randint(1, 9))
            if integers and v in positive
            else Fraction(rng.randint(-6, 6))
            if integers
            else Fraction(rng.randint(1, 97), rng.randint(1, 13))
            if v in positive
            else Fraction(rng.randint(-97, 97), rng.randint(1, 13))
            for v in sorted(names)
        }


def _equal_everywhere(
    lhs: Any, rhs: Any, nonzero: list, rng: random.Random, fixed: dict | None = None
) -> bool:
    names = symbols_of(lhs) | symbols_of(rhs) | set().union(*(symbols_of(c) for c in nonzero))
    nat = _exponent_symbols(lhs) | _exponent_symbols(rhs)
    fl, fr, fc = evaluator(lhs), evaluator(rhs), [evaluator(c) for c in nonzero]
    tested = 0
    exps = has_exp(lhs) or has_exp(rhs)  # exp(v) is 2^v here: integer points only
    for env in _points(names - set(fixed or {}), nat, rng, n=40, integers=exps):
        env.update(fixed or {})
        try:
            if any(f(env) == 0 for f in fc):
                continue
            a, b = fl(env), fr(env)
        except (ZeroDivisionError, Bad):
            continue
        tested += 1
        if a != b:
            return False
        if tested >= 12:
            break
    return True


# ------------------------------------------------------------ per kind
def _identity(ob: dict, rng) -> bool:
    return _equal_everywhere(ob["lhs"], ob["rhs"], ob.get("nonzero", []), rng)


def _recurrence(ob: dict, rng) -> bool:
    k, prev, start = ob["var"], ob.get("prev", "prev"), ob["start"]
    if not isinstance(start, int) or isinstance(start, bool) or start < 0:
        raise Bad("start")
    closed, step, init = evaluator(ob["closed"]), evaluator(ob["step"]), evaluator(ob["initial"])
    conds = [evaluator(c) for c in ob.get("nonzero", [])]
    names = (
        symbols_of(ob["closed"])
        | symbols_of(ob["step"])
        | symbols_of(ob["initial"])
        | set().union(*(symbols_of(c) for c in ob.get("nonzero", [])))
    ) - {k, prev}
    exps = has_exp(ob["closed"]) or has_exp(ob["step"])
    for env in _points(names, set(), rng, n=6, integers=exps):
        try:
            s = init(env)
            for j in range(start, start + 7):
                here = {**env, k: Fraction(j)}
                if any(c(here) == 0 for c in conds):
                    break
                if closed(here) != s:
                    return False
                s = step({**here, prev: s})
        except (ZeroDivisionError, Bad):
            continue
    return True


def _sum_of_squares(ob: dict, rng) -> bool:
    target, pos = ob["target"], set(ob.get("positive", []))
    f, conds = evaluator(target), [evaluator(c) for c in ob.get("nonzero", [])]
    names = symbols_of(target) | set().union(*(symbols_of(c) for c in ob.get("nonzero", [])))
    for env in _points(names, set(), rng, n=60, positive=pos):
        try:
            if any(c(env) == 0 for c in conds):
                continue
            if f(env) < 0:
                return False
        except ZeroDivisionError:
            continue
    return True


def to_z3(e: Any, env: dict) -> Any:
    if isinstance(e, bool):
        return z3.BoolVal(e)
    if isinstance(e, int):
        return z3.RealVal(e)
    if isinstance(e, str):
        if _NUM.match(e):
            return z3.RealVal(e)
        return env.setdefault(e, z3.Real(e))
    op, a = e[0], [to_z3(x, env) for x in e[1:]]
    table = {
        "+": lambda: z3.Sum(*a),
        "*": lambda: z3.Product(*a),
        "-": lambda: -a[0] if len(a) == 1 else a[0] - a[1],
        "/": lambda: a[0] / a[1],
        "<": lambda: a[0] < a[1],
        "<=": lambda: a[0] <= a[1],
        ">": lambda: a[0] > a[1],
        ">=": lambda: a[0] >= a[1],
        "=": lambda: a[0] == a[1],
        "!=": lambda: a[0] != a[1],
        "and": lambda: z3.And(*a),
        "or": lambda: z3.Or(*a),
        "not": lambda: z3.Not(a[0]),
        "implies": lambda: z3.Implies(a[0], a[1]),
        "ite": lambda: z3.If(*a),
    }
    if op == "^" and isinstance(e[2], int):
        power = z3.Product(*([a[0]] * abs(e[2]))) if e[2] else z3.RealVal(1)
        return power if e[2] >= 0 else 1 / power
    if op not in table:
        raise Bad(f"z3: operator {op}")
    return table[op]()


def _z3_sat(formulas: list) -> bool:
    s = z3.Solver()
    s.set("timeout", 20_000)
    env: dict = {}
    for f in formulas:
        s.add(to_z3(f, env))
    r = s.check()
    if r == z3.unknown:
        raise Bad("z3 unknown")
    return r == z3.sat


def _farkas(ob: dict, rng) -> bool:
    cons = ob["constraints"]
    if not isinstance(cons, list) or len(ob["multipliers"]) != len(cons):
        raise Bad("shape")
    domain = []
    for name, d in ob.get("parameters", {}).items():
        if d == "positive":
            domain.append([">", name, 0])
        elif d == "nonneg":
            domain.append([">=", name, 0])
        else:
            _, a, b, kind = d
            domain += [[">=" if kind == "[)" else ">", name, a], ["<", name, b]]
    return not _z3_sat(cons + domain)


def _linear_valid(ob: dict, rng) -> bool:
    return not _z3_sat([["not", ob["formula"]]])


def _truth(ob: dict) -> bool:
    env = {k: Fraction(v) for k, v in ob["assignment"].items()}
    value = evaluator(ob["formula"])(env)
    if not isinstance(value, bool):
        raise Bad("not boolean")
    return value


def _enumeration(ob: dict, rng) -> bool:
    dom = ob["domain"]
    envs = []

    def walk(i: int, env: dict) -> None:
        if i == len(dom):
            envs.append(env)
            return
        name, lo, hi = dom[i]
        a, b = evaluator(lo)(env), evaluator(hi)(env)
        for v in range(int(a), int(b) + 1):
            walk(i + 1, {**env, name: v})

    walk(0, {})
    return _enumeration_values(ob, envs)


def _enumeration_values(ob: dict, envs: list) -> bool:
    """The aggregate of expr over the environments where `where` holds is the value."""
    expr = evaluator(ob.get("expr", True))
    where = evaluator(ob.get("where", True))
    vals = [expr(env) for env in envs if where(env)]
    agg, want = ob["aggregate"], ob["value"]
    if agg in ("all", "any"):
        return (all(vals) if agg == "all" else any(vals)) is want
    if agg == "set":
        return sorted(set(vals)) == sorted({Fraction(evaluator(v)({})) for v in want})
    target = Fraction(evaluator(want)({}))
    if agg == "count":
        return len(vals) == target
    if agg == "sum":
        return sum(vals, Fraction(0)) == target
    if not vals:
        return False
    return (min(vals) if agg == "min" else max(vals)) == target


def to_sympy(e: Any) -> Any:
    if isinstance(e, bool):
        return sp.true if e else sp.false
    if isinstance(e, int):
        return sp.Integer(e)
    if isinstance(e, str):
        return sp.Rational(e) if _NUM.match(e) else sp.Symbol(e)
    op, a = e[0], [to_sympy(x) for x in e[1:]]
    if op == "+":
        return sp.Add(*a)
    if op == "*":
        return sp.Mul(*a)
    if op == "-":
        return -a[0] if len(a) == 1 else a[0] - a[1]
    if op == "/":
        return a[0] / a[1]
    if op == "^":
        return a[0] ** a[1]
    raise Bad(f"sympy: operator {op}")


def _matrix(ob: dict, rng) -> bool:
    m = sp.Matrix([[to_sympy(x) for x in row] for row in ob["matrix"]])
    t = sp.Dummy("t")
    checks = []
    if "equals" in ob:
        checks.append(sp.Matrix([[to_sympy(x) for x in r] for r in ob["equals"]]) - m)
    if "product" in ob:
        prod = None
        for f in ob["product"]:
            fm = sp.Matrix([[to_sympy(x) for x in r] for r in f])
            prod = fm if prod is None else prod * fm
        checks.append(prod - m)
    if "det" in ob:
        checks.append(sp.Matrix([[m.det() - to_sympy(ob["det"])]]))
    if "charpoly" in ob:
        v = sp.Symbol(ob["charpoly"]["var"])
        checks.append(
            sp.Matrix([[(v * sp.eye(m.rows) - m).det() - to_sympy(ob["charpoly"]["poly"])]])
        )
    if "eigenvalues" in ob:
        eig = [to_sympy(x) for x in ob["eigenvalues"]]
        if len(eig) != m.rows:
            return False
        checks.append(sp.Matrix([[(t * sp.eye(m.rows) - m).det() - sp.Mul(*[t - e for e in eig])]]))
    for c in checks:
        if any(sp.simplify(sp.cancel(x)) != 0 for x in c):
            return False
    if "count" in ob:
        cnt = ob["count"]
        where = evaluator(cnt["where"])
        got = sum(1 for e in ob["eigenvalues"] if where({cnt["bind"]: evaluator(e)({})}))
        if got != cnt["value"]:
            return False
    return True


KINDS = {
    "identity": _identity,
    "recurrence": _recurrence,
    "sum_of_squares": _sum_of_squares,
    "farkas": _farkas,
    "linear_valid": _linear_valid,
    "witness": lambda ob, rng: _truth(ob) is True,
    "counterexample": lambda ob, rng: _truth(ob) is False,
    "enumeration": _enumeration,
    "matrix": _matrix,
    "trusted": lambda ob, rng: True,
    **NEW_KINDS,
}


def holds(cert: dict, limit: int | None = None) -> bool:
    """True when the certificate is well formed and everything it asserts is true (with a
    limit, a seeded sample of that many obligations is judged)."""
    try:
        if set(cert) != TOP or cert["format"] != "fito-certificate/2":
            return False
        if not isinstance(cert["statement"], list) or len(cert["statement"]) != len(
            cert["obligations"]
        ):
            return False
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", cert["id"]) or not re.fullmatch(
            r"[a-z0-9][a-z0-9_+-]*", cert["method"]
        ):
            return False
        kinds = [ob["kind"] for ob in cert["obligations"]]
        if cert["verdict"] not in ("proved", "refuted") or not kinds:
            return False
        if cert["verdict"] == "proved" and "counterexample" in kinds:
            return False
        if cert["verdict"] == "refuted" and (
            set(kinds) - {"counterexample", "witness", "farkas"}
            or not {"counterexample", "witness"} & set(kinds)
        ):
            return False
        rng = random.Random(1)
        judged = cert["obligations"]
        if limit is not None and len(judged) > limit:
            judged = random.Random(cert["id"]).sample(judged, limit)
        return all(KINDS[ob["kind"]](ob, rng) for ob in judged)
    except (Bad, KeyError, TypeError, ValueError, ZeroDivisionError, IndexError, AttributeError):
        return False
