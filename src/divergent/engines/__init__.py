"""The engines: each proposes inputs and learns from what the programs did on them; one budget is
shared among them by the portfolio.

* shared by every kind: :mod:`~divergent.engines.base` (the ``Engine`` interface and the
  ``EngineContext`` one search hands its engines), :mod:`~divergent.engines.portfolio` (the scheduler
  of the one budget), :mod:`~divergent.engines.registry` (the names ``--engines`` accepts),
  :mod:`~divergent.engines.settings` (per-engine choices, the model's access),
  :mod:`~divergent.engines.constants` (literals harvested from the source);
* :mod:`divergent.engines.calls`: the engines of Python calls (seeds, mutation, Hypothesis, CrossHair,
  the language model's generators) and the values they draw;
* :mod:`divergent.engines.text`: the engines of whole programs' texts (stdin), which read and write
  inputs through the input formats of :mod:`divergent.formats`.

Where a change goes: a new engine is a module in the folder of the inputs it proposes, one entry in
its kinds' ``engines`` table (``kinds/*.py``) and, if users may name it, one in
:mod:`~divergent.engines.registry`; a change to how turns are shared goes to the portfolio. Engines
never ask which kind of program they serve (tests/test_architecture.py): what differs comes from the
kind, through the context. This package imports nothing here: import from the module.
"""
