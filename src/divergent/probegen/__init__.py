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
"""

from divergent.probegen.session import ProbeGenResult, ProbeGenSession
from divergent.probegen.strategies import (
    DEFAULT_D,
    DEFAULT_K,
    DEFAULT_STRATEGY,
    Strategy,
    branching,
    max_calls,
)
from divergent.probegen.tree import (
    ProbeNode,
    ProbeResult,
    ProbeTree,
    TreeFormatError,
    read_tree,
    tree_from_json,
    write_tree,
)

__all__ = [
    "DEFAULT_D",
    "DEFAULT_K",
    "DEFAULT_STRATEGY",
    "ProbeGenResult",
    "ProbeGenSession",
    "ProbeNode",
    "ProbeResult",
    "ProbeTree",
    "Strategy",
    "TreeFormatError",
    "branching",
    "max_calls",
    "read_tree",
    "tree_from_json",
    "write_tree",
]
