"""Counterexamples and witnesses as data: built from engine states, replayed from files."""
