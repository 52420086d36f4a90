"""Printing: the canonical printer and `fito fmt`'s layout of it."""
