"""The programs that run inside the sandbox, next to untrusted code (standard library and
:mod:`divergent.values` only): :mod:`.kit` (the protocol and what every child shares),
:mod:`.worker`, :mod:`.generator` and :mod:`.symbolic`."""
