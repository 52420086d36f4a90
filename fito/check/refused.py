"""What an engine refuses to translate (raised by the symbolic engine, turned into the M402
diagnostic by fito/check/verdicts.py); z3-free, so the verdicts import it eagerly."""

from __future__ import annotations


class Refused(Exception):
    """A model feature the engine does not translate: why, as text."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
