"""Clustering implementations by behaviour, and picking the largest cluster (self-consistency).

- :mod:`~divergent.clustering.behaviour`: :func:`cluster` and :class:`Clustering`, on the inputs the
  search's engines generate (the public ``divergent.cluster``);
- :mod:`~divergent.clustering.semantic`: semantic clustering with ProbeGen probes and the spurious
  filter, the self-consistency pick, reference tests (ProbeGen, Sec. 5).

(The package is ``clustering``, not ``cluster``: ``divergent.cluster`` is the public function.)

Where a change goes: how samples become classes and which class is picked in
:mod:`~divergent.clustering.behaviour`; probes, the filter's say and reference tests in
:mod:`~divergent.clustering.semantic`. The search they run on is :mod:`divergent.search`.
"""

from divergent.clustering.behaviour import Clustering, cluster, run_cluster

__all__ = ["Clustering", "cluster", "run_cluster"]
