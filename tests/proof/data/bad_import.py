"""A claims file that fails to import (line 4)."""
from fito.proof import claim
raise RuntimeError("broken claims file")
