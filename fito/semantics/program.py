"""What the terms need to know of the program: the names a node reads (a closure keeps the
values of those alone), and the calls of a definition that loop (they keep its activation
of process variables; docs/semantics.md, "Process variables")."""
from __future__ import annotations

from fito.lang import nodes as A


def names_read(node: object) -> set[str]:
    """Every name a node reads and does not bind itself (binders, inputs)."""
    out: set[str] = set()

    def walk(n: object, bound: frozenset[str]) -> None:
        if isinstance(n, A.Name):
            if n.id not in bound:
                out.add(n.id)
        elif isinstance(n, (A.Quant, A.Replicated, A.AssignLoop, A.Let)):
            walk(getattr(n, "domain", None), bound)
            walk(getattr(n, "value", None), bound)
            walk(getattr(n, "sync", ()), bound | ({n.var} if isinstance(n, A.Replicated)
                                                  and n.op == "||" else frozenset()))
            walk(n.body, bound | {n.var})
        elif isinstance(n, A.Prefix):
            inner = bound
            for f in (n.event.fields if n.event else ()):
                if isinstance(f, A.InField):
                    walk(f.restriction, bound)
                    inner = inner | {f.var}
                else:
                    walk(f.value, inner)
            walk(n.assigns, inner)
            walk(n.body, inner)
        elif isinstance(n, tuple):
            for x in n:
                walk(x, bound)
        elif hasattr(n, "__slots__"):
            for name in n.__slots__:  # type: ignore[union-attr]
                if name not in ("span", "name_span", "name_spans"):
                    walk(getattr(n, name), bound)

    walk(node, frozenset())
    return out


def loop_calls(decl: A.ProcessDecl) -> list[A.ProcRef]:
    """Calls of the definition from its own body outside every parallel operator: they keep
    the caller's activation (a loop); every other call makes a new one."""
    out: list[A.ProcRef] = []
    work: list[A.Proc] = [decl.body]
    while work:
        p = work.pop()
        if isinstance(p, A.ProcRef):
            if p.name == decl.name:
                out.append(p)
        elif isinstance(p, (A.Prefix, A.Guard, A.AssertStep, A.Atomic)):
            work.append(p.body)
        elif isinstance(p, A.ProcIf):
            work.extend((p.then, p.orelse))
        elif isinstance(p, A.ProcBinary) and p.op != "|||":
            work.extend((p.left, p.right))
        elif isinstance(p, (A.Hide, A.Rename)):
            work.append(p.proc)
        elif isinstance(p, A.Replicated) and p.op in ("[]", "|~|"):
            work.append(p.body)
        elif isinstance(p, A.Select):
            work.extend(p.branches + ((p.orelse,) if p.orelse is not None else ()))
    return out
