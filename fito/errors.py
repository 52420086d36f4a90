"""The one base class of fito's user-facing errors.

fito has three kinds of exception (docs/api.md):
- `FitoError` and its subclasses: what the input, the options or the environment got wrong,
  said in words a user can act on (a usage error, a checkpoint directory that cannot be
  restored, a model the checker refuses, a budget reached). Commands turn them into a
  diagnostic and an exit status, never a traceback.
- the proof kernel's refusal (`fito.proof.kernel.expr.KernelError`): the kernel imports only
  the standard library, so it cannot derive from this class; a refusal is a verdict of the
  kernel, reported as `rejected`.
- everything else is internal: control flow inside an engine (a model error met while
  exploring, a state that does not pack) or a bug.
"""

from __future__ import annotations


class FitoError(Exception):
    """A user-facing error: the message says what went wrong and, where it can, what to do."""
