"""Clustering implementations by behaviour, and picking the largest cluster (self-consistency).

- :mod:`~divergent.cluster.behaviour`: :func:`cluster` and :class:`Clustering`, on the inputs the
  search's engines generate (the public ``divergent.cluster``);
- :mod:`~divergent.cluster.semantic`: semantic clustering with ProbeGen probes and the spurious
  filter, the self-consistency pick, reference tests (ProbeGen, Sec. 5).

``divergent.cluster`` names both this package and the public function. Python binds the package to
that name as soon as any of its modules is imported, so the package itself is callable and calls
:func:`cluster`: ``divergent.cluster([...])`` works whichever the name holds.
"""

import sys
import types
from typing import Any

from divergent.cluster.behaviour import Clustering, cluster, run_cluster

__all__ = ["Clustering", "cluster", "run_cluster"]


class _CallablePackage(types.ModuleType):
    """This package, callable as :func:`cluster`."""

    def __call__(self, *args: Any, **options: Any) -> Clustering:
        return cluster(*args, **options)


sys.modules[__name__].__class__ = _CallablePackage
