"""fito: model checking, FITO type checking and proof certificates for checkpoint protocols."""

from __future__ import annotations

__version__ = "0.1.0"
