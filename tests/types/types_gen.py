"""Hypothesis strategies for pipelines: statements with the names they define and use."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

EPOCHS = ("e0", "e1", "e2", "e3")
LETS = ("v0", "v1", "v2", "v3", "v4", "v5")
DOMAINS = ("gpu", "host", "nvme")
PROTOCOLS = ("P", "Q")
HEADER = "type Dom = {gpu, host, nvme}\n"


@dataclass(frozen=True)
class Stmt:
    """One pipeline line as a template: `{e0}` marks an epoch name (for renaming)."""

    template: str
    defs: frozenset[str]
    uses: frozenset[str]

    def render(self, rename: dict[str, str] | None = None) -> str:
        names = {e: (rename or {}).get(e, e) for e in EPOCHS}
        return self.template.format(**names)


def _ep(name: str) -> str:
    return "{" + name + "}"


@st.composite
def terms(draw, epochs=EPOCHS) -> tuple[str, frozenset[str]]:
    """A linear epoch term such as `{e1} + 2` or `2 * {e0} - {e3}`, with the epochs it uses."""
    kind = draw(st.integers(0, 4))
    a, b = draw(st.sampled_from(epochs)), draw(st.sampled_from(epochs))
    c = draw(st.integers(-3, 3))
    if kind == 0:
        return _ep(a), frozenset({a})
    if kind == 1:
        return f"{_ep(a)} + {c}", frozenset({a})
    if kind == 2:
        return f"{c % 3 + 1} * {_ep(a)} - {_ep(b)}", frozenset({a, b})
    if kind == 3:
        return str(c), frozenset()
    return f"{_ep(a)} / 2", frozenset({a})


@st.composite
def facts(draw) -> tuple[str, frozenset[str]]:
    (x, ux), (y, uy) = draw(terms()), draw(terms())
    op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
    text = f"{x} {op} {y}"
    if draw(st.booleans()):
        (z, uz), (w, uw) = draw(terms()), draw(terms())
        joiner = draw(st.sampled_from(["and", "or", "=>"]))
        return f"{text} {joiner} {z} == {w}", ux | uy | uz | uw
    return text, ux | uy


@st.composite
def statements(draw, lets=LETS, fresh: str | None = None) -> Stmt:
    """Any statement, well typed or not (names may be undefined or defined twice).

    Inputs come from `lets` (the names defined so far, mostly); a let binds `fresh`
    unless the draw reuses a name."""
    kind = draw(st.integers(0, 10))
    v = fresh if fresh is not None and draw(st.integers(0, 9)) else draw(st.sampled_from(LETS))
    pool = lets if lets and draw(st.integers(0, 9)) else LETS
    src = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3))
    doms = draw(st.lists(st.sampled_from(DOMAINS), min_size=1, max_size=3))
    p = draw(st.sampled_from(PROTOCOLS))
    t, ut = draw(terms())
    if kind == 0:
        e = draw(st.sampled_from(EPOCHS))
        return Stmt(f"epoch {_ep(e)}", frozenset({e}), frozenset())
    if kind == 1:
        f, uf = draw(facts())
        return Stmt(f"require {f}", frozenset(), uf)
    if kind == 2:
        at = f" @ {t}" if draw(st.booleans()) else ""
        return Stmt(
            f"let {v} = snapshot({', '.join(doms)}){at}", frozenset({v}), ut if at else frozenset()
        )
    if kind == 3:
        return Stmt(f"let {v} = commit({p}, {t}, {', '.join(doms)})", frozenset({v}), ut)
    if kind in (4, 5):
        return Stmt(
            f"let {v} = converge({p}, {t}, {', '.join(src)})", frozenset({v}), ut | frozenset(src)
        )
    if kind == 6:
        return Stmt(f"let {v} = assume({p}, {t}, {src[0]})", frozenset({v}), ut | {src[0]})
    if kind == 7:
        return Stmt(f"let {v} = time({src[0]})", frozenset({v}), frozenset({src[0]}))
    if kind == 8:
        op = draw(st.sampled_from(["restore", "resume", "deploy"]))
        return Stmt(f"{op}({src[0]})", frozenset(), frozenset({src[0]}))
    if kind == 9:
        return Stmt(f"save({src[0]}, {doms[0]})", frozenset(), frozenset({src[0]}))
    return Stmt(f"log({', '.join(src)})", frozenset(), frozenset(src))


@st.composite
def pipelines(draw, max_size: int = 14) -> list[Stmt]:
    """Mostly meaningful pipelines: epochs first (usually), inputs mostly defined earlier."""
    out: list[Stmt] = []
    if draw(st.integers(0, 4)):
        out.append(
            Stmt("epoch " + ", ".join(_ep(e) for e in EPOCHS), frozenset(EPOCHS), frozenset())
        )
    defined: list[str] = []
    for i in range(draw(st.integers(1, max_size))):
        s = draw(statements(tuple(defined), fresh=f"w{i}"))
        if s.template.startswith("require") and draw(st.integers(0, 2)):
            continue  # keep facts rarer, so that fewer pipelines are contradictory
        out.append(s)
        defined.extend(sorted(s.defs - set(EPOCHS)))
    return out


def render(stmts: list[Stmt], rename: dict[str, str] | None = None, name: str = "p") -> str:
    body = "\n".join("  " + s.render(rename) for s in stmts)
    return f"{HEADER}pipeline {name} {{\n{body}\n}}\n"


FIRST_LINE = 3  # the line of the first statement in `render`


def independent(a: Stmt, b: Stmt) -> bool:
    """Neither statement defines a name the other defines or uses."""
    return not (a.defs & (b.defs | b.uses)) and not (b.defs & (a.defs | a.uses))


@st.composite
def committed_pipelines(draw) -> list[Stmt]:
    """Well-typed pipelines in which every converge combines commits of its own epoch."""
    out: list[Stmt] = [
        Stmt("epoch " + ", ".join(_ep(e) for e in EPOCHS), frozenset(EPOCHS), frozenset())
    ]
    convs: dict[str, list[str]] = {}  # epoch -> Conv names of that epoch
    snaps: list[str] = []
    for i in range(draw(st.integers(1, 14))):
        v = f"v{i}"
        e = draw(st.sampled_from(EPOCHS))
        p = draw(st.sampled_from(PROTOCOLS))
        kind = draw(st.integers(0, 5))
        if kind == 0 or not convs.get(e):
            doms = draw(st.lists(st.sampled_from(DOMAINS), min_size=1, max_size=3))
            out.append(
                Stmt(
                    f"let {v} = commit({p}, {_ep(e)}, {', '.join(doms)})",
                    frozenset({v}),
                    frozenset({e}),
                )
            )
            convs.setdefault(e, []).append(v)
        elif kind == 1:
            src = draw(st.lists(st.sampled_from(convs[e]), min_size=1, max_size=3))
            out.append(
                Stmt(
                    f"let {v} = converge({p}, {_ep(e)}, {', '.join(src)})",
                    frozenset({v}),
                    frozenset({e, *src}),
                )
            )
            convs[e].append(v)
        elif kind == 2:
            c = draw(st.sampled_from(convs[e]))
            op = draw(st.sampled_from(["restore", "resume", "deploy"]))
            out.append(Stmt(f"{op}({c})", frozenset(), frozenset({c})))
        elif kind == 3:
            doms = draw(st.lists(st.sampled_from(DOMAINS), min_size=1, max_size=2))
            out.append(Stmt(f"let {v} = snapshot({', '.join(doms)})", frozenset({v}), frozenset()))
            snaps.append(v)
        elif kind == 4 and snaps:
            s = draw(st.sampled_from(snaps))
            out.append(Stmt(f"save({s}, nvme)", frozenset(), frozenset({s})))
        else:
            c = draw(st.sampled_from(convs[e]))
            out.append(Stmt(f"log({c})", frozenset(), frozenset({c})))
    return out
