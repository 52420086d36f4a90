"""`python -m fito` runs the command line."""
from __future__ import annotations

import sys

from fito.cli import main

sys.exit(main())
