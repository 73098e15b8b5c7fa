"""Running untrusted implementations: isolated worker processes, limits, and verdicts.

See :mod:`divergent.sandbox.isolation` for what each isolation level guarantees,
:mod:`divergent.sandbox.limits` for the limits, :mod:`divergent.sandbox.pool` for the persistent
workers, and :mod:`divergent.sandbox.child` for everything that runs inside the sandbox (and the
one protocol it speaks, read on this side by :mod:`divergent.sandbox.frames`).

Import from the modules themselves: this package imports nothing, so a sandbox child that imports
:mod:`divergent.sandbox.child.kit` loads no parent-side code.

Where a change goes: a new way to run programs is a :class:`~divergent.sandbox.runner.Runner`
(a kind opens it); a limit in :mod:`~divergent.sandbox.limits` and its enforcement in the child's
``kit``; an isolation level in :mod:`~divergent.sandbox.isolation`; a compiler in
:mod:`~divergent.sandbox.builds`; code that runs next to untrusted code only under ``child/``.
"""
