"""Running untrusted implementations: isolated worker processes, limits, and verdicts.

See :mod:`divergent.sandbox.isolation` for what each isolation level guarantees and
:mod:`divergent.sandbox.pool` for the persistent workers.
"""

from divergent.sandbox.isolation import GUARANTEES, Isolation, available_levels, choose_level
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import WorkerPool

__all__ = ["GUARANTEES", "Isolation", "Limits", "WorkerPool", "available_levels", "choose_level"]
