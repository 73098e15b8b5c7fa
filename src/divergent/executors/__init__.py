"""Where a long run's items are worked on: threads of this machine, or a Ray cluster.

* :mod:`~divergent.executors.base`: the :class:`~divergent.executors.base.Executor` seam (``map``
  items through a picklable function, each finished item handed back in the calling thread as soon
  as it is done; ``serve_model`` to share a language model with the workers) and the threads
  executor;
* :mod:`~divergent.executors.settings`: what a run asks for (``--executor``, ``--address``,
  ``--jobs``), checked before anything is stored, and :func:`~divergent.executors.settings.open_executor`;
* :mod:`~divergent.executors.ray_cluster`: the Ray executor (the optional ``divergent[ray]``
  extra), imported only when asked for.

Every long run goes through them: the benchmarks' resumable loop
(:func:`divergent.bench.common.run_plan`) and the incoherence study. Nothing here knows what an item
is; the caller's function does the work and returns plain JSON.

Where a change goes: a new executor implements :class:`~divergent.executors.base.Executor` in a
module of its own and is named in :mod:`~divergent.executors.settings` (``--executor``).
"""
