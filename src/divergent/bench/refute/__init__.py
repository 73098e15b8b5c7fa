"""REFUTE (Sinha et al., 2025): write an input on which a wrong Codeforces submission fails.

Rooms: ``dataset.py`` (rows, language → build), ``actions.py`` (the model's XML answers),
``prompts.py`` (our prompts, and the authors' templates as data), ``execution.py`` (the one place
that runs code: builds, runs and the output comparison of whole programs),
``evaluate.py`` (the success rule and the attempt statuses), ``strategies/`` (zero-shot, few-shot,
zero-shot-oracle, agent, randsearch, randsearch-oracle, divergent, hybrid), ``run.py`` (the
stored, resumable run), ``report.py`` (the tables).

This package imports nothing in its ``__init__``: import from the module that holds a name.
"""
