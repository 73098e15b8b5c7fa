"""The programs that run inside the sandbox, next to untrusted code (standard library and
:mod:`divergent.values` only): :mod:`.kit` (the one protocol and what every child shares),
:mod:`.worker` (calls of implementations), :mod:`.generator` (input generators a model wrote) and
:mod:`.symbolic` with :mod:`.symbolic_search` (CrossHair).

Where a change goes: a new child is a module here built on :mod:`.kit`, started and read from the
parent with :mod:`divergent.sandbox.frames`; it imports nothing of divergent but :mod:`divergent.values`.
"""
