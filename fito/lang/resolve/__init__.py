"""Resolution: names bound, constants folded, types known, every static check a diagnostic."""
