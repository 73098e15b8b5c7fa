"""The engines of Python calls: they propose ``Input`` records (arguments of one function) for the
kind of Python functions (:mod:`divergent.kinds.functions` names them in its table).

* :mod:`.seeds` (the user's and the code's examples), :mod:`.mutation` with :mod:`.mutators`,
  :mod:`.string_operators`, :mod:`.sizes` and :mod:`.shapes` (type-aware mutation, DiffTrust's
  Table 6), :mod:`.shaped` (calls built from the structure mined from the code), :mod:`.spaces`
  (every call of a small input space, for the exhaustive verdict);
* :mod:`.hypothesis` (property-based generation), :mod:`.symbolic` with :mod:`.proofs` and
  :mod:`.provable` (CrossHair in the sandbox; proofs of equivalence);
* :mod:`.llm_probes` (ProbeGen's tree search) and :mod:`.randsearch` (REFUTE's generator, and the
  ``--brute-force`` reference): the engines that need a language model.

Where a change goes: how a value of a type is drawn or edited goes to :mod:`.shapes` or
:mod:`.mutators`; a new way to find calls is a new module here and a line in the kind's table.
"""
