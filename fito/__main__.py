"""`python -m fito` runs the command line."""

from __future__ import annotations

import sys

from fito import methodcache

methodcache.install()  # before fito's modules define their dataclasses

from fito.cli.main import main  # noqa: E402

sys.exit(main())
