"""The programs that run inside the sandbox, next to untrusted code (standard library and
:mod:`divergent.values` only): :mod:`.kit` (the one protocol and what every child shares),
:mod:`.worker` (calls of implementations), :mod:`.generator` (input generators a model wrote) and
:mod:`.symbolic` with :mod:`.symbolic_search` (CrossHair)."""
