"""Paper A: the epoch lattice, P(atomic), optimizer algebra, guardrails, coordination and
bilateral commit."""
