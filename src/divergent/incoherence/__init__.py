"""Incoherence of sampled programs: estimating correctness without an oracle (the DiffTrust paper).

* :mod:`~divergent.incoherence.metrics`: the paper's estimators, aggregates, ranking agreement and
  PAC sample sizes (pure functions of behaviour-class labels);
* :mod:`~divergent.incoherence.inputs`: Gen(d), the inputs a task's programs run on;
* :mod:`~divergent.incoherence.run`: measuring one task (all models' samples and the ground truth in
  one sandbox) into class labels per (model, task) unit, and the solver that measures a task's job
  as shipped to a worker (:class:`~divergent.incoherence.run.TaskMeasurer`; the job:
  :mod:`divergent.datasets.jobs`);
* :mod:`~divergent.incoherence.study`: a stored, resumable study over tasks × models (the benchmarks'
  loop, :func:`divergent.bench.common.run_plan`, on threads or Ray: :mod:`divergent.executors`), and
  its summary;
* :mod:`~divergent.incoherence.difftrust`: the artifact's comparison (``--compat difftrust``) and
  readers of its logs.
"""
