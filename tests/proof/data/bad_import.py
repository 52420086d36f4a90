"""A claims file that fails to import (line 3)."""
# the next line raises while `fito prove` imports this file
raise RuntimeError("broken claims file")
