"""The engines of whole programs' texts: they propose ``TextInput`` records (one program's stdin) for
the kinds whose input is a text (whole programs and commands: :class:`divergent.kinds.texts.TextKind`
names them), through the input format's trees (:mod:`divergent.formats.text_structure`).

* :mod:`.seeds` (examples, test files, a small space), :mod:`.grammar` (fresh inputs drawn from the
  input format), :mod:`.mutation` with :mod:`.operators` and :mod:`.slots` (structure-aware edits),
  :mod:`.generator` (the user's generator program), :mod:`.llm` (ProbeGen and RandSearch writing
  generators of texts);
* what the validator teaches them: :mod:`.feedback`, :mod:`.lessons`, :mod:`.patterns`,
  :mod:`.mending`; :mod:`.slowness` (smaller sizes when runs hit the time limit).

Where a change goes: what an input is made of (tokens, counts, test cases) belongs to
:mod:`divergent.formats`, not here; how a tree is edited goes to :mod:`.operators`; what the
validator's answers teach goes to :mod:`.lessons` or :mod:`.patterns`.
"""
