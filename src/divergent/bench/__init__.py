"""The published benchmarks' harnesses: each a dataset loader, solvers (strategies, judges) and a
scorer, with its results stored per item so that a run resumes where it stopped.

* :mod:`divergent.bench.common`: what the harnesses share (a stored, resumable run over items,
  pass@k, the JSON results envelope);
* :mod:`divergent.bench.refute`: REFUTE (counterexamples to wrong competitive-programming
  solutions, ``divergent bench refute``).

This package imports nothing in its ``__init__``: import from the module that holds a name.
"""
