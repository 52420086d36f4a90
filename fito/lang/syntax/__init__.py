"""Syntax: the scanner, the LALR(1) driver over Lark's strict table, syntax errors in words."""
