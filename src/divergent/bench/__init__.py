"""Harnesses of published benchmarks: a dataset loader, a solver (a model, divergent, or both), a
scorer, and results stored per item so that a killed run resumes.

* :mod:`~divergent.bench.common`: what every harness shares: a resumable per-item run over the
  store (:func:`run_items`) and the JSON results envelope (:func:`results_envelope`);
* :mod:`~divergent.bench.answers`, :mod:`~divergent.bench.binary`: yes/no judges (answer parsing,
  self-consistency) and their metrics (accuracy, bias, confusion matrix, F1);
* :mod:`~divergent.bench.equibench`: EquiBench (Wei et al.): six categories of program pairs,
  LLM judges and divergent's execution judge;
* :mod:`~divergent.bench.cetbench`: CETBench (Oza et al.): pairs made by perturbing programs
  (Algorithm 1), validated by tests and by divergent, and judged.

Nothing here is imported by ``import divergent``: the harnesses load on first use.
"""
