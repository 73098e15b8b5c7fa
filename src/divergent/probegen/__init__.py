"""ProbeGen: a language model writes input generators, sees what they did, and tries again.

The rooms:

- :mod:`~divergent.probegen.strategies`: how many children a node gets at each depth (Sec. 4.1),
  the defaults, :func:`max_calls`;
- :mod:`~divergent.probegen.tree`: the one tree model (:class:`ProbeNode`, :class:`ProbeTree`) and
  the one tree-file format, written by the session and read by the analysis;
- :mod:`~divergent.probegen.session`: :class:`ProbeGenSession`, the tree search itself (prompts,
  generator runs in the sandbox, execution feedback, stored nodes);
- :mod:`~divergent.probegen.analysis`: the strategy estimator on sampled full trees, Pareto fronts,
  the cost table; :mod:`~divergent.probegen.plots` draws them (matplotlib, optional).

Import from the modules themselves: this package imports nothing, so the engines' settings can name
the strategies without loading the tree search.

Where a change goes: how many children a node gets in :mod:`~divergent.probegen.strategies`; the
prompts, the generator runs and the feedback in :mod:`~divergent.probegen.session` and
:mod:`~divergent.probegen.feedback`; the tree file's format only in :mod:`~divergent.probegen.tree`.
"""
