"""Counterexamples shown to people: text, the --explain timeline, HTML with SVG charts.

Every renderer reads only `fito.check.traces.records` values (and verdicts), never the engine.
"""
