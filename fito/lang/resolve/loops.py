"""Which calls of a process keep its activation: the one syntactic rule that both the
engine (fito/semantics) and the reference interpreter (fito/reference) follow for
process variables (docs/semantics.md)."""

from __future__ import annotations

from fito.lang import nodes as A


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
