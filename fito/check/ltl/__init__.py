"""`P |= ltl <formula> [fair ...]`: LTL model checking with fairness (docs/ltl.md).

The negated formula becomes a Büchi automaton (formulas.py, buchi.py); its product with the
compiled model (product.py) is searched for an accepting, fair cycle (emptiness.py,
fairness.py); a cycle found is shown as a lasso (lasso.py): the run's stem, then the steps
that repeat forever.
"""

from __future__ import annotations

from fito.check.ltl.verdict import check_ltl

__all__ = ["check_ltl"]
