"""The symbolic engine (`fito check --engine symbolic`): the compiled network as a Z3
transition system, bounded model checking for shortest runs, k-induction and Spacer for
proofs over runs of any length (docs/symbolic.md)."""

from fito.check.symbolic.search import symbolic_search

__all__ = ["symbolic_search"]
