"""Operational semantics: cells laid out as a flat vector, expressions compiled to an IR,
process terms interned, and the symbolic steps of each term (docs/semantics.md)."""
