"""Harnesses of published benchmarks, all of one shape: a dataset, a solver (a model, divergent, or
both), a scorer, and results stored per item so that a killed run resumes, on threads or on a Ray
cluster.

* :mod:`~divergent.bench.common`: what every harness shares: the dataset's items and the solver in a
  :class:`~divergent.bench.common.RunPlan`, the resumable loop that works it over the store on an
  executor (:func:`~divergent.bench.common.run_plan`), and the JSON results envelope
  (:func:`~divergent.bench.common.results_envelope`); each harness's prompts are in its
  ``templates/`` directory;
* :mod:`~divergent.bench.answers`, :mod:`~divergent.bench.binary`: yes/no judges (answer parsing,
  self-consistency) and their metrics (accuracy, bias, confusion matrix, F1);
* :mod:`~divergent.bench.equibench`: EquiBench (Wei et al.): six categories of program pairs,
  LLM judges and divergent's execution judge;
* :mod:`~divergent.bench.cetbench`: CETBench (Oza et al.): pairs made by perturbing programs
  (Algorithm 1), validated by tests and by divergent, and judged;
* :mod:`~divergent.bench.refute`: REFUTE (Sinha et al.): inputs on which wrong competitive-programming
  solutions fail, from the paper's strategies and ours (``divergent``, ``hybrid``);
* :mod:`~divergent.bench.selfconsistency`: semantic self-consistency (ProbeGen, Sec. 5.1) over a
  benchmark's recorded LLM samples: each task's samples clustered, the largest class scored on the
  task's tests against a random sample.

Nothing here is imported by ``import divergent``: the harnesses load on first use.
"""
