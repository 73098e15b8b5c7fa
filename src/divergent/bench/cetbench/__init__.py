"""CETBench (counterexample generation on perturbed program pairs): :mod:`.pairs` (pair files),
:mod:`.perturb` with :mod:`.perturb_common` and :mod:`.perturb_data` (the seven perturbations, as
libcst rewrites), :mod:`.generate` (the paper's Algorithm 1) with :mod:`.validate` (tests and a
divergent check per step) and :mod:`.generation` (its stored, resumable run); :mod:`.run` (a judge
over the pairs, and the metrics) and :mod:`.html` (its page). Prompts are in ``templates/``.
Import from the module that holds a name.
"""
