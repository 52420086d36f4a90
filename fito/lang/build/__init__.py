"""Building: grammar reductions become AST nodes (frozen dataclasses with spans)."""
