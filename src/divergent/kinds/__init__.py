"""Kinds of program: everything that differs between a Python function, a whole program reading
stdin and the kinds to come, one object per kind (:class:`~divergent.kinds.base.ProgramKind`).

The package imports nothing here: import from the module that holds a name. :mod:`.registry` names
the kinds (a new kind is one module and one line there) and chooses one from the specs and options;
:mod:`.base` is the interface the search, the reports and the command line talk to.
"""
