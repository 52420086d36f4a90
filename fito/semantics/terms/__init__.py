"""Process terms at run time: closures interned to ints, and what they read."""
