"""Running untrusted implementations: isolated worker processes, limits, and verdicts.

See :mod:`divergent.sandbox.isolation` for what each isolation level guarantees,
:mod:`divergent.sandbox.limits` for the limits, :mod:`divergent.sandbox.pool` for the persistent
workers, and :mod:`divergent.sandbox.child` for everything that runs inside the sandbox (and the
one protocol it speaks, read on this side by :mod:`divergent.sandbox.frames`).
"""

from divergent.sandbox.isolation import GUARANTEES, Isolation, available_levels, choose_level
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import WorkerPool

__all__ = ["GUARANTEES", "Isolation", "Limits", "WorkerPool", "available_levels", "choose_level"]
